// The Kubernetes manifests of deploy/kubernetes (issue 36): every object valid against its kind's
// schema (kubernetes-models: the Kubernetes OpenAPI schemas compiled in the package, no cluster),
// and the references between them that no schema sees: names, selectors, ports, paths, the
// proxy's list of DocBuilder instances, the settings' names. scripts/container-test.sh plays the
// same manifests with podman (deploy/podman-pods.ts).

import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { CONFIG_SCHEMA, CONFIG_VARIABLES } from "../app/config";
import { type K8sObject, MANIFEST_DIR, find, kustomizationResources, loadManifests, validateObject } from "./manifests";
import { podmanObjects } from "./podman-pods";

const docs = await loadManifests();
const gate = find(docs, "StatefulSet", "svc");
const docbuilder = find(docs, "StatefulSet", "docbuilder");
const hpa = find(docs, "HorizontalPodAutoscaler", "docbuilder");

const container = (set: K8sObject) => set.spec.template.spec.containers[0];
const envOf = (set: K8sObject): Record<string, any> => Object.fromEntries(container(set).env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
/** A container port by number, from a probe's port (a number or the container port's name). */
const portNumber = (set: K8sObject, port: number | string) =>
  typeof port === "number" ? port : container(set).ports.find((p: any) => p.name === port)?.containerPort;
/** A memory quantity in MiB (the suffixes the manifests use). */
const mib = (q: string) => {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (!m) throw new Error(`unexpected quantity ${q}`);
  return Number(m[1]) * (m[2] === "Gi" ? 1024 : 1);
};
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

describe("deploy/kubernetes", () => {
  test("the kustomization lists every manifest in the folder", async () => {
    const yamlFiles = readdirSync(MANIFEST_DIR).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort();
    expect([...(await kustomizationResources())].sort()).toEqual(yamlFiles);
    expect(docs.map((d) => `${d.object.kind}/${d.object.metadata.name}`).sort()).toEqual([
      "ConfigMap/svc-instance", "HorizontalPodAutoscaler/docbuilder", "PodDisruptionBudget/docbuilder", "Secret/svc-license",
      "Secret/svc-secrets", "Service/docbuilder", "Service/svc", "StatefulSet/docbuilder", "StatefulSet/svc",
    ]);
    // Namespace-agnostic: applied into the namespace the operator chooses.
    for (const { object } of docs) expect(object.metadata).not.toHaveProperty("namespace");
  });

  test("every document validates against its kind's Kubernetes schema", () => {
    for (const { object } of docs) expect(() => validateObject(object)).not.toThrow();
  });

  test("a broken copy is refused: wrong field types, a missing required field, an unknown kind", () => {
    const broken = (edit: (o: any) => void, source: K8sObject = docbuilder) => {
      const copy = structuredClone(source);
      edit(copy);
      return () => validateObject(copy);
    };
    expect(broken((o) => (o.spec.replicas = "two"))).toThrow(/replicas must be integer/);
    expect(broken((o) => (o.spec.template.spec.containers[0].ports[0].containerPort = "8081"))).toThrow(/containerPort must be integer/);
    expect(broken((o) => delete o.spec.selector)).toThrow(/selector/);
    expect(broken((o) => (o.spec.maxReplicas = 10.5), hpa)).toThrow(/maxReplicas/);
    expect(broken((o) => (o.kind = "StatefulSets"))).toThrow(/no schema known/);
  });

  test("the HPA scales the docbuilder StatefulSet on CPU, from 2 to 10", () => {
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "StatefulSet", name: "docbuilder" });
    expect(hpa.spec.minReplicas).toBe(2);
    expect(hpa.spec.maxReplicas).toBe(10);
    expect(hpa.spec.metrics).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }]);
    // CPU utilisation is measured against the request: there must be one.
    expect(container(docbuilder).resources.requests.cpu).toBeDefined();
  });

  test("DocBuilder: a StatefulSet behind its headless Service, which selects its pods and keeps unready ones named", () => {
    const svc = find(docs, "Service", "docbuilder");
    expect(docbuilder.spec.serviceName).toBe("docbuilder");
    expect(docbuilder.spec.podManagementPolicy).toBe("Parallel");
    expect(svc.spec.clusterIP).toBe("None");
    expect(svc.spec.publishNotReadyAddresses).toBe(true);
    const labels = docbuilder.spec.template.metadata.labels;
    expect(matches(docbuilder.spec.selector.matchLabels, labels)).toBe(true);
    expect(matches(svc.spec.selector, labels)).toBe(true);
    // The headless Service must not select the gate's pod, nor the gate's Service DocBuilder's.
    expect(matches(svc.spec.selector, gate.spec.template.metadata.labels)).toBe(false);
    expect(matches(find(docs, "Service", "svc").spec.selector, labels)).toBe(false);
    expect(matches(find(docs, "PodDisruptionBudget", "docbuilder").spec.selector.matchLabels, labels)).toBe(true);
    expect(portNumber(docbuilder, svc.spec.ports[0].targetPort)).toBe(8081);
    const env = envOf(docbuilder);
    expect(env.SVC_ROLE).toBe("docbuilder");
    expect(env.SVC_DOCBUILDER_INSTANCE).toBe("from-hostname");
    expect(env.SVC_APP_LISTEN).toBe("0.0.0.0:8081");
    expect(docbuilder.spec.template.spec.volumes.find((v: any) => v.name === "data").emptyDir).toBeDefined();
  });

  test("the gate's proxy lists exactly maxReplicas DocBuilder instances and reaches a job's owner by name", () => {
    const env = envOf(gate);
    const upstreams = String(env.SVC_PROXY_DOCBUILDER_UPSTREAMS).trim().split(/\s+/);
    expect(upstreams).toEqual(Array.from({ length: hpa.spec.maxReplicas }, (_, n) => `docbuilder-${n}.${docbuilder.spec.serviceName}:8081`));
    expect(env.SVC_PROXY_DOCBUILDER_OWNER).toBe("docbuilder-{re.owner.n1}{re.owner.n2}.docbuilder:8081");
    expect(env.SVC_DOCBUILDER_WORKERS).toBe("1");
    const service = find(docs, "Service", "svc");
    expect(service.spec.type).toBe("ClusterIP");
    expect(service.spec.ports[0].port).toBe(8080);
    expect(portNumber(gate, service.spec.ports[0].targetPort)).toBe(8080);
    expect(matches(service.spec.selector, gate.spec.template.metadata.labels)).toBe(true);
    expect(gate.spec.replicas).toBe(1);
    expect(gate.spec.volumeClaimTemplates.map((t: any) => t.metadata.name)).toEqual(["data"]);
    expect(container(gate).volumeMounts).toContainEqual({ name: "data", mountPath: "/data" });
    expect(container(gate).command).toBeUndefined(); // the image's CMD: the launcher
  });

  test("probes: DocBuilder /v1/status on 8081, the gate /svc/healthz on 8080, startup allowing LibreOffice's warm-up", () => {
    for (const [set, path, port] of [[docbuilder, "/v1/status", 8081], [gate, "/svc/healthz", 8080]] as const) {
      for (const kind of ["startupProbe", "livenessProbe", "readinessProbe"]) {
        const probe = container(set)[kind];
        expect(probe.httpGet.path).toBe(path);
        expect(portNumber(set, probe.httpGet.port)).toBe(port);
      }
      const startup = container(set).startupProbe;
      expect(startup.periodSeconds * startup.failureThreshold).toBeGreaterThanOrEqual(120);
    }
  });

  test("the license Secret is mounted at /etc/svc/license.token, optional, in both workloads", () => {
    expect(find(docs, "Secret", "svc-license").stringData).toHaveProperty(["license.token"]);
    expect(CONFIG_SCHEMA.shape.SVC_LICENSE_FILE.parse(undefined)).toBe("/etc/svc/license.token");
    for (const set of [gate, docbuilder]) {
      const volume = set.spec.template.spec.volumes.find((v: any) => v.secret?.secretName === "svc-license");
      expect(volume.secret.optional).toBe(true);
      const mount = container(set).volumeMounts.find((m: any) => m.name === volume.name);
      const file = volume.secret.items ? volume.secret.items.find((i: any) => i.key === "license.token").path : "license.token";
      expect(`${mount.mountPath}/${file}`).toBe("/etc/svc/license.token");
      expect(mount.readOnly).toBe(true);
    }
  });

  test("every SVC_* variable named in the manifests is a setting of app/config.ts or of the proxy", async () => {
    const text = (await Promise.all((await kustomizationResources()).map((f) => Bun.file(`${MANIFEST_DIR}/${f}`).text()))).join("\n");
    const named = [...new Set(text.match(/\bSVC_[A-Z0-9_]+/g))];
    expect(named.length).toBeGreaterThan(10);
    const proxy = (v: string) => v.startsWith("SVC_PROXY_") || v === "SVC_APP_UPSTREAM" || v === "SVC_EDSRV_UPSTREAM";
    expect(named.filter((v) => !CONFIG_VARIABLES.includes(v) && !proxy(v))).toEqual([]);
    // Every value written in a manifest passes the setting's own check.
    for (const set of [gate, docbuilder]) {
      for (const [name, value] of Object.entries(envOf(set))) {
        if (typeof value !== "string" || !(name in CONFIG_SCHEMA.shape)) continue;
        expect({ name, ok: (CONFIG_SCHEMA.shape as any)[name].safeParse(value).success }).toEqual({ name, ok: true });
      }
    }
    expect(CONFIG_SCHEMA.shape.SVC_GATE_INSTANCE_ID.safeParse(find(docs, "ConfigMap", "svc-instance").data.SVC_GATE_INSTANCE_ID).success).toBe(true);
  });

  test("both workloads share the Secret and the instance id; its placeholders are refused by the settings check", () => {
    for (const set of [gate, docbuilder]) {
      expect(container(set).envFrom).toEqual([{ secretRef: { name: "svc-secrets" } }]);
      expect(envOf(set).SVC_GATE_INSTANCE_ID).toEqual({ configMapKeyRef: { name: "svc-instance", key: "SVC_GATE_INSTANCE_ID" } });
    }
    const secrets = find(docs, "Secret", "svc-secrets").stringData;
    for (const key of Object.keys(secrets)) expect(CONFIG_VARIABLES).toContain(key);
    // A forgotten edit stops the pods at start rather than running with a published secret.
    for (const key of ["SVC_DOCBUILDER_API_KEYS", "SVC_DOCBUILDER_JWT_SECRET", "SVC_EMBED_JWT_SECRET"] as const) {
      expect({ key, accepted: CONFIG_SCHEMA.shape[key].safeParse(secrets[key]).success }).toEqual({ key, accepted: false });
    }
  });

  test("resources: requests and limits everywhere, engine memory limits and workers within them", () => {
    for (const set of [gate, docbuilder]) {
      const r = container(set).resources;
      for (const k of ["cpu", "memory"]) {
        expect(r.requests[k]).toBeDefined();
        expect(r.limits[k]).toBeDefined();
      }
      expect(mib(r.requests.memory)).toBeLessThanOrEqual(mib(r.limits.memory));
      const env = envOf(set);
      const workers = Number(env.SVC_DOCBUILDER_WORKERS);
      // One engine past SVC_ENGINE_MEMORY_LIMIT_MB is stopped by the service before the pod is.
      expect(Number(env.SVC_ENGINE_MEMORY_LIMIT_MB)).toBeLessThan(mib(r.limits.memory));
      // Sizing's rule of thumb: 500 MB per worker requested, one core per two workers.
      expect(mib(r.requests.memory)).toBeGreaterThanOrEqual(500 * workers);
      expect(Number(r.requests.cpu) * 2).toBeGreaterThanOrEqual(workers);
    }
    const db = envOf(docbuilder);
    expect(Number(db.SVC_DOCBUILDER_WORKERS) * Number(db.SVC_ENGINE_MEMORY_LIMIT_MB)).toBeLessThan(mib(container(docbuilder).resources.limits.memory));
  });

  test("non-root, no privilege escalation, and stop grace for the launcher's and DocBuilder's shutdown", () => {
    for (const set of [gate, docbuilder]) {
      const pod = set.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBe(10001); // the image's user svc (Containerfile)
      expect(container(set).securityContext.allowPrivilegeEscalation).toBe(false);
    }
    expect(gate.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(50);
    expect(docbuilder.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(10);
  });

  test("the Pods podman plays are valid Pods of the StatefulSets' templates, published on 127.0.0.1 only", () => {
    const secretValues = Object.fromEntries(Object.keys(find(docs, "Secret", "svc-secrets").stringData).map((k) => [k, `test-${k}`]));
    const objects = podmanObjects(docs, { image: "localhost/svc:test", hostPorts: { svc: 18080, docbuilder: 18181 }, secretValues });
    const pods = objects.filter((o) => o.kind === "Pod");
    expect(pods.map((p) => p.spec.hostname)).toEqual(["svc-0", "docbuilder-0"]);
    expect(objects.filter((o) => o.kind === "PersistentVolumeClaim").map((o) => o.metadata.name)).toEqual(["data-svc-0"]);
    for (const pod of pods) {
      const c = pod.spec.containers[0];
      expect(c.image).toBe("localhost/svc:test");
      expect(c.ports.filter((p: any) => p.hostPort).map((p: any) => p.hostIP)).toEqual(["127.0.0.1"]);
      expect(c.env.find((e: any) => e.name === "SVC_DOCBUILDER_API_KEYS").value).toBe("test-SVC_DOCBUILDER_API_KEYS");
      expect(c.env.find((e: any) => e.name === "SVC_GATE_INSTANCE_ID").value).toBe(find(docs, "ConfigMap", "svc-instance").data.SVC_GATE_INSTANCE_ID);
    }
    // A Secret key without a value is never played as its placeholder.
    expect(() => podmanObjects(docs, { image: "x", hostPorts: { svc: 1, docbuilder: 2 }, secretValues: {} })).toThrow(/no value given/);
  });
});
