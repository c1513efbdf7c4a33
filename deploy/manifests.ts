// Reads the Kubernetes manifests of deploy/kubernetes (the files its kustomization.yaml lists),
// and knows the schema model of every kind they use, from the kubernetes-models package (the
// Kubernetes OpenAPI schemas compiled to validators: no cluster and no network needed).
// Used by deploy/kubernetes.test.ts and deploy/podman-pods.ts.

import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Pod } from "kubernetes-models/v1/Pod";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";

export const MANIFEST_DIR = join(import.meta.dir, "kubernetes");

/** One Kubernetes object as written (plain data: the checks read it as the YAML says it). */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

export interface ManifestDoc {
  file: string;
  object: K8sObject;
}

/** A model class per apiVersion/kind: `new Model(object).validate()` throws on a schema error. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Pod": Pod,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "apps/v1/StatefulSet": StatefulSet,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
};

/** Validates one object against its kind's schema; throws naming the object and the first errors. */
export function validateObject(object: K8sObject): void {
  const Model = MODELS[`${object?.apiVersion}/${object?.kind}`];
  if (!Model) throw new Error(`no schema known for ${object?.apiVersion}/${object?.kind} (add its model to deploy/manifests.ts)`);
  try {
    new Model(object).validate();
  } catch (e) {
    throw new Error(`${object.kind} ${object.metadata?.name}: ${(e as Error).message}`);
  }
}

/** Parses YAML text holding one or more documents; a syntax error throws. */
export function parseYamlDocuments(text: string, file: string): K8sObject[] {
  const docs = parseAllDocuments(text);
  const out: K8sObject[] = [];
  for (const d of docs) {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
    const value = d.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** The kustomization's resources, in order. */
export async function kustomizationResources(dir = MANIFEST_DIR): Promise<string[]> {
  const [k] = parseYamlDocuments(await Bun.file(join(dir, "kustomization.yaml")).text(), "kustomization.yaml");
  return (k as any)?.resources ?? [];
}

/** Every object of every manifest the kustomization lists. */
export async function loadManifests(dir = MANIFEST_DIR): Promise<ManifestDoc[]> {
  const out: ManifestDoc[] = [];
  for (const file of await kustomizationResources(dir)) {
    for (const object of parseYamlDocuments(await Bun.file(join(dir, file)).text(), file)) out.push({ file, object });
  }
  return out;
}

/** The one object of a kind and name; throws when missing. */
export function find(docs: ManifestDoc[], kind: string, name: string): K8sObject {
  const d = docs.find((x) => x.object.kind === kind && x.object.metadata?.name === name);
  if (!d) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return d.object;
}
