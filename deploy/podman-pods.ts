#!/usr/bin/env bun
// Derives what `podman kube play` (podman 4.3: Pods, Deployments, PersistentVolumeClaims; no
// StatefulSet, Service, Secret or HPA) can run from deploy/kubernetes: one Pod per StatefulSet,
// its pod template as written, with what podman lacks replaced. scripts/container-test.sh plays
// them to run the manifests' own settings for real. Per StatefulSet:
//   - the Pod is <name>-0 with hostname <name>-0, as the StatefulSet's first pod (DocBuilder's
//     SVC_DOCBUILDER_INSTANCE=from-hostname reads its number from it);
//   - the image is --image (the image the container test built);
//   - ConfigMap references become their values from the manifests; Secret references take their
//     values from this script's environment (the test's own, never the placeholders), and one
//     missing stops the script;
//   - the license Secret's volume becomes --license-dir (hostPath) or an empty directory;
//   - a volumeClaimTemplate becomes a PersistentVolumeClaim of the StatefulSet's naming
//     (<template>-<name>-0), which podman makes a named volume;
//   - the first container port is published on 127.0.0.1 only, at the --port given for the name;
//   - the probes are dropped: podman 4.3 would run them as its own health checks with the named
//     ports unresolved; the container test polls the same endpoints itself.
// Usage: bun deploy/podman-pods.ts --image localhost/svc:test --port svc=18080 --port docbuilder=18181
//          [--license-dir DIR] [--env NAME:SVC_X=value]... > pods.yaml

import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { type K8sObject, type ManifestDoc, find, loadManifests, validateObject } from "./manifests";

export interface PodmanOptions {
  image: string;
  /** Host port (on 127.0.0.1) per StatefulSet name. */
  hostPorts: Record<string, number>;
  /** Values for every key of the Secrets the pods read as environment variables. */
  secretValues: Record<string, string | undefined>;
  licenseDir?: string;
  /** Extra or replaced environment variables per StatefulSet name. */
  env?: Record<string, Record<string, string>>;
}

type EnvVar = { name: string; value?: string; valueFrom?: any };

function secretValue(opts: PodmanOptions, key: string): string {
  const v = opts.secretValues[key];
  if (v === undefined) throw new Error(`${key}: no value given for this Secret key (set it in the environment)`);
  return v;
}

function resolveEnv(docs: ManifestDoc[], container: any, opts: PodmanOptions, overrides: Record<string, string>): EnvVar[] {
  const out = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) {
      const s = find(docs, "Secret", from.secretRef.name);
      for (const key of Object.keys({ ...s.data, ...s.stringData })) out.set(key, secretValue(opts, key));
    } else if (from.configMapRef) {
      for (const [key, value] of Object.entries(find(docs, "ConfigMap", from.configMapRef.name).data ?? {})) out.set(key, String(value));
    }
  }
  for (const e of (container.env ?? []) as EnvVar[]) {
    const ref = e.valueFrom;
    if (ref?.configMapKeyRef) out.set(e.name, String(find(docs, "ConfigMap", ref.configMapKeyRef.name).data?.[ref.configMapKeyRef.key] ?? ""));
    else if (ref?.secretKeyRef) out.set(e.name, secretValue(opts, ref.secretKeyRef.key));
    else if (ref) throw new Error(`${e.name}: podman cannot play valueFrom ${Object.keys(ref).join(", ")}`);
    else out.set(e.name, e.value ?? "");
  }
  for (const [k, v] of Object.entries(overrides)) out.set(k, v);
  return [...out].map(([name, value]) => ({ name, value }));
}

/** The Pods (and PersistentVolumeClaims) podman plays for the manifests' StatefulSets. */
export function podmanObjects(docs: ManifestDoc[], opts: PodmanOptions): K8sObject[] {
  const out: K8sObject[] = [];
  for (const { object: set } of docs.filter((d) => d.object.kind === "StatefulSet")) {
    const name: string = set.metadata.name;
    const podName = `${name}-0`;
    const spec = structuredClone(set.spec.template.spec);
    const hostPort = opts.hostPorts[name];
    if (!hostPort) throw new Error(`no --port for ${name}`);
    spec.hostname = podName;
    spec.containers = spec.containers.map((c: any, i: number) => {
      const { livenessProbe, readinessProbe, startupProbe, envFrom, ...rest } = c;
      return {
        ...rest,
        image: opts.image,
        env: resolveEnv(docs, c, opts, opts.env?.[name] ?? {}),
        ports: (c.ports ?? []).map((p: any, j: number) => (i === 0 && j === 0 ? { ...p, hostPort, hostIP: "127.0.0.1" } : p)),
      };
    });
    spec.volumes = (spec.volumes ?? []).map((v: any) =>
      v.secret ? { name: v.name, ...(opts.licenseDir ? { hostPath: { path: opts.licenseDir, type: "Directory" } } : { emptyDir: {} }) } : v,
    );
    for (const t of set.spec.volumeClaimTemplates ?? []) {
      const claimName = `${t.metadata.name}-${podName}`;
      out.push({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: claimName }, spec: t.spec });
      spec.volumes.push({ name: t.metadata.name, persistentVolumeClaim: { claimName } });
    }
    out.push({ apiVersion: "v1", kind: "Pod", metadata: { name: podName, labels: set.spec.template.metadata?.labels }, spec });
  }
  for (const o of out) validateObject(o);
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      image: { type: "string" },
      port: { type: "string", multiple: true },
      "license-dir": { type: "string" },
      env: { type: "string", multiple: true },
    },
  });
  if (!values.image) throw new Error("--image is required");
  const hostPorts = Object.fromEntries((values.port ?? []).map((p) => p.split("=")).map(([n, v]) => [n!, Number(v)]));
  const env: Record<string, Record<string, string>> = {};
  for (const item of values.env ?? []) {
    const m = /^([^:]+):([A-Z0-9_]+)=(.*)$/s.exec(item);
    if (!m) throw new Error(`--env ${item}: expected NAME:VARIABLE=value`);
    (env[m[1]!] ??= {})[m[2]!] = m[3]!;
  }
  const objects = podmanObjects(await loadManifests(), { image: values.image, hostPorts, secretValues: process.env, licenseDir: values["license-dir"], env });
  process.stdout.write(objects.map((o) => stringify(o)).join("---\n"));
}
