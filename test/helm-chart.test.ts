import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  consoleReporter,
  ensureHelm,
  ensureKubernetesValidator,
  helmKubeVersion,
  type KubernetesValidator,
  loadStackConfig,
} from '@hookstream/stack';
import { loadTracingConfig } from '@hookstream/telemetry';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

// The Helm chart, checked without a cluster (there is none here, nor a Docker engine): helm
// lint, helm template with each values file, and every rendered object validated strictly
// against the Kubernetes schemas (KEDA's from its CRDs), then the properties that matter for
// running it safely. Needs neither Kafka nor the network once the cache holds helm and the
// schemas; the first run builds helm from the Go module proxy (minutes, see beforeAll).

const run = promisify(execFile);
const CHART = resolve(import.meta.dirname, '../deploy/helm/hookstream');
const VALUES = {
  default: [],
  sasl: [join(CHART, 'ci/values-sasl-ssl-mtls.yaml')],
  keda: [join(CHART, 'ci/values-keda.yaml')],
  saslKeda: [join(CHART, 'ci/values-sasl-ssl-mtls.yaml'), join(CHART, 'ci/values-keda.yaml')],
  api: [join(CHART, 'ci/values-api.yaml')],
  saslApi: [join(CHART, 'ci/values-sasl-ssl-mtls.yaml'), join(CHART, 'ci/values-api.yaml')],
} as const;
type Component = 'ingress' | 'pusher' | 'api';
/** The components each case runs (the API only where a values file enables it). */
const components = (c: Case): Component[] =>
  c === 'api' || c === 'saslApi' ? ['ingress', 'pusher', 'api'] : ['ingress', 'pusher'];
type Case = keyof typeof VALUES;

// Loosely typed views of rendered objects: the schemas already checked their shape.
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  securityContext?: Record<string, unknown>;
  readinessProbe?: { httpGet?: { path: string; port: string } };
  livenessProbe?: { httpGet?: { path: string; port: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Volume {
  name: string;
  emptyDir?: object;
  secret?: { secretName: string };
  projected?: { sources: { secret?: { name: string } }[] };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read field by field
  spec?: any;
}
interface PodSpec {
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: Record<string, unknown>;
  containers: Container[];
  volumes?: Volume[];
}

let helm: string;
let validator: KubernetesValidator;
let kubeVersion: string;
const rendered = new Map<Case, { text: string; objects: K8sObject[] }>();

async function template(files: readonly string[], set: readonly string[] = []) {
  const args = ['template', 'hs', CHART, '--namespace', 'hookstream', '--kube-version', kubeVersion];
  for (const f of files) args.push('--values', f);
  for (const s of set) args.push('--set', s);
  const { stdout } = await run(helm, args, { maxBuffer: 16 * 1024 * 1024 });
  const objects = parseAllDocuments(stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  return { text: stdout, objects };
}

/** What `helm template` says when a render fails (it exits non-zero). */
async function templateError(set: readonly string[]): Promise<string> {
  try {
    await template([], set);
  } catch (err) {
    return (err as { stderr?: string }).stderr ?? String(err);
  }
  throw new Error(`helm template --set ${set.join(',')} rendered, but should have failed`);
}

function get(c: Case): K8sObject[] {
  const r = rendered.get(c);
  if (!r) throw new Error(`case ${c} was not rendered`);
  return r.objects;
}

function find(objects: K8sObject[], kind: string, component?: string): K8sObject[] {
  return objects.filter(
    (o) =>
      o.kind === kind &&
      (component === undefined || o.metadata.labels?.['app.kubernetes.io/component'] === component),
  );
}

function deployment(c: Case, component: Component): { object: K8sObject; pod: PodSpec } {
  const [object] = find(get(c), 'Deployment', component);
  if (!object) throw new Error(`no ${component} Deployment in case ${c}`);
  return { object, pod: object.spec.template.spec as PodSpec };
}

function container(pod: PodSpec): Container {
  const [only, ...more] = pod.containers;
  if (!only || more.length > 0) throw new Error('expected exactly one container');
  return only;
}

function env(c: Container, name: string): EnvVar | undefined {
  return c.env?.find((e) => e.name === name);
}

beforeAll(async () => {
  const config = loadStackConfig();
  // First run: helm is built from the Go module proxy (about 4.5 minutes on two cores) and the
  // schemas are installed (about 20 s); both are cached in ~/.cache/hookstream afterwards.
  helm = await ensureHelm(config, consoleReporter);
  validator = await ensureKubernetesValidator(config, consoleReporter);
  const kube = await helmKubeVersion();
  kubeVersion = `${kube.major}.${kube.minor}.0`;
  for (const c of Object.keys(VALUES) as Case[]) rendered.set(c, await template(VALUES[c]));
}, 20 * 60_000);

describe('helm lint', () => {
  it.each(['default', 'sasl', 'keda', 'api', 'saslApi'] as const)(
    'passes --strict with the %s values',
    async (c) => {
      const args = ['lint', CHART, '--strict', '--kube-version', kubeVersion];
      for (const f of VALUES[c]) args.push('--values', f);
      const { stdout } = await run(helm, args);
      expect(stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    },
  );
});

describe('schema validation', () => {
  it.each(Object.keys(VALUES) as Case[])('accepts every object rendered with the %s values', async (c) => {
    const { text, objects } = rendered.get(c) ?? { text: '', objects: [] };
    const checks = await validator.validate(text, { kubeVersion });
    expect(checks.length).toBe(objects.length);
    expect(checks.filter((r) => !r.ok)).toEqual([]);
  });

  it('rejects a wrong field type, an unknown field and an unknown kind, built-in or KEDA', async () => {
    const { text } = await template(VALUES.saslKeda);
    const broken = [
      // A port as a word: the Deployment schema says integer.
      text.replace('containerPort: 8080', 'containerPort: eighty'),
      // A misspelt field in the pod's security context.
      text.replace('readOnlyRootFilesystem: true', 'readOnlyRootFileSystem: true'),
      // KEDA: a replica count as a string, and an unknown trigger field.
      text.replace('minReplicaCount: 1', 'minReplicaCount: "one"'),
      text.replace('type: kafka', 'type: kafka\n      lagThreshhold: "5"'),
      `${text}\n---\napiVersion: v1\nkind: Nonsense\nmetadata:\n  name: x\n`,
    ];
    const problems = [];
    for (const manifest of broken) {
      expect(manifest).not.toBe(text);
      const bad = (await validator.validate(manifest, { kubeVersion })).filter((r) => !r.ok);
      expect(bad).toHaveLength(1);
      problems.push(`${bad[0]?.kind}: ${bad[0]?.error}`);
    }
    expect(problems[0]).toMatch(/^Deployment: .*containerPort: 'eighty' is not of type 'integer'/);
    expect(problems[1]).toMatch(/^Deployment: .*'readOnlyRootFileSystem' was unexpected/);
    expect(problems[2]).toMatch(/^ScaledObject: spec\/minReplicaCount: 'one' is not of type 'integer'/);
    expect(problems[3]).toMatch(/^ScaledObject: spec\/triggers\/0: .*'lagThreshhold' was unexpected/);
    expect(problems[4]).toMatch(/^Nonsense: Couldn't find schema/);
  });
});

describe('the values schema', () => {
  it('refuses a misspelt key, an unknown SASL mechanism and a secret given as a value', async () => {
    expect(await templateError(['kafak.brokers=kafka:9092'])).toMatch(/additional properties 'kafak'/);
    expect(await templateError(['kafka.sasl.mechanism=scram'])).toMatch(/kafka\/sasl\/mechanism/);
    // There is no place for a password in the values: it can only come from a Secret.
    expect(await templateError(['kafka.sasl.password=hunter2'])).toMatch(/additional properties 'password'/);
  });

  it('fails the render on settings that cannot work, naming what to fix', async () => {
    expect(await templateError(['keda.enabled=true'])).toMatch(/keda\.subscribers/);
    expect(await templateError(['kafka.tls.clientCert.secretName=c'])).toMatch(
      /kafka\.tls\.enabled is false/,
    );
    expect(await templateError(['kafka.sasl.mechanism=plain', 'kafka.sasl.username=u'])).toMatch(
      /kafka\.sasl\.passwordSecret\.name/,
    );
    expect(await templateError(['ingress.tokens.secretName='])).toMatch(/ingress\/tokens\/secretName/);
    expect(await templateError(['registry.caSecret.name=ca'])).toMatch(/registry\.url is not https/);
  });
});

describe('pod security', () => {
  it.each(['default', 'sasl', 'keda', 'api', 'saslApi'] as const)(
    'runs every component non-root and read-only (%s)',
    (c) => {
      for (const component of components(c)) {
        const { pod } = deployment(c, component);
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(pod.securityContext).toMatchObject({
          runAsNonRoot: true,
          runAsUser: 1000,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        const ctr = container(pod);
        expect(ctr.securityContext).toEqual({
          runAsNonRoot: true,
          runAsUser: 1000,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        });
        // The read-only root needs a writable /tmp, and only /tmp.
        const tmp = ctr.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
        const writable = ctr.volumeMounts?.filter((m) => !m.readOnly).map((m) => m.mountPath);
        expect(writable).toEqual(['/tmp']);
        expect(ctr.resources?.requests).toMatchObject({
          cpu: expect.any(String),
          memory: expect.any(String),
        });
        expect(ctr.resources?.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      }
    },
  );
});

describe('the ingress', () => {
  it('serves on 0.0.0.0:8080 with tokens from a mounted Secret and probes /readyz and /healthz', () => {
    const { pod } = deployment('default', 'ingress');
    const ctr = container(pod);
    expect(ctr.args).toEqual(['ingress']);
    expect(env(ctr, 'INGRESS_HOST')?.value).toBe('0.0.0.0');
    expect(env(ctr, 'INGRESS_PORT')?.value).toBe('8080');
    expect(env(ctr, 'INGRESS_METRICS_PORT')).toBeUndefined();
    expect(ctr.ports?.find((p) => p.name === 'http')?.containerPort).toBe(8080);
    expect(ctr.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(ctr.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    const tokens = env(ctr, 'INGRESS_TOKENS_FILE')?.value ?? '';
    const mount = ctr.volumeMounts?.find((m) => tokens.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    expect(pod.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName).toBe(
      'hookstream-ingress-tokens',
    );
    const [service] = find(get('default'), 'Service', 'ingress');
    expect(service?.spec.ports[0]).toMatchObject({ targetPort: 'http' });
    expect(service?.spec.selector).toEqual(deployment('default', 'ingress').object.spec.selector.matchLabels);
  });

  it('waits before it is signalled, so the Service stops routing to it first', async () => {
    const { pod } = deployment('default', 'ingress');
    const wait = Number(container(pod).lifecycle?.preStop?.exec?.command[1]);
    expect(container(pod).lifecycle?.preStop?.exec?.command[0]).toBe('sleep');
    expect(wait).toBeGreaterThan(0);
    // The wait counts against the grace period: what is left must still cover the drain.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(wait + 10);
    const { objects } = await template([], ['ingress.preStopSleepSeconds=0']);
    const [noWait] = find(objects, 'Deployment', 'ingress');
    expect(noWait?.spec.template.spec.containers[0].lifecycle).toBeUndefined();
  });

  it('serves metrics on all addresses only when a metrics port is set', () => {
    const ctr = container(deployment('sasl', 'ingress').pod);
    expect(env(ctr, 'INGRESS_METRICS_PORT')?.value).toBe('9464');
    expect(env(ctr, 'INGRESS_METRICS_HOST')?.value).toBe('0.0.0.0');
  });

  it('has an HPA and a PDB only when enabled, and leaves replicas to the HPA', () => {
    for (const c of ['default', 'keda'] as const) {
      expect(find(get(c), 'HorizontalPodAutoscaler')).toEqual([]);
      expect(find(get(c), 'PodDisruptionBudget')).toEqual([]);
      expect(deployment(c, 'ingress').object.spec.replicas).toBe(2);
    }
    const { object } = deployment('sasl', 'ingress');
    expect(object.spec.replicas).toBeUndefined();
    const [hpa] = find(get('sasl'), 'HorizontalPodAutoscaler', 'ingress');
    expect(hpa?.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: object.metadata.name,
    });
    const [pdb] = find(get('sasl'), 'PodDisruptionBudget', 'ingress');
    expect(pdb?.spec.selector.matchLabels).toEqual(object.spec.selector.matchLabels);
  });
});

describe('the pusher fleet', () => {
  it('runs push --all with its health server on 0.0.0.0:8081, /healthz live and /readyz ready', () => {
    const ctr = container(deployment('default', 'pusher').pod);
    expect(ctr.args).toEqual(['push', '--all', '--health-port', '8081', '--health-host', '0.0.0.0']);
    expect(ctr.ports).toEqual([{ name: 'health', containerPort: 8081, protocol: 'TCP' }]);
    expect(ctr.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(ctr.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'health' });
    // Subscribers come from the catalog topic: nothing but /tmp is mounted by default.
    expect(ctr.volumeMounts?.map((m) => m.mountPath)).toEqual(['/tmp']);
    expect(container(deployment('keda', 'pusher').pod).args).toEqual([
      'push',
      '--all',
      '--health-port',
      '8081',
      '--health-host',
      '0.0.0.0',
      '--metrics-port',
      '9465',
    ]);
  });

  it('gives the fleet a memory budget that fits its memory limit with room, as set', async () => {
    const ctr = container(deployment('default', 'pusher').pod);
    const budgetMiB = Number(env(ctr, 'HOOKSTREAM_MEMORY_BUDGET_MB')?.value);
    expect(ctr.resources?.limits?.memory).toBe('768Mi');
    // The heap, the fetch responses in hand and the records in flight come on top of the budget.
    expect(budgetMiB).toBeLessThanOrEqual(768 / 2);
    const { objects } = await template([], ['pusher.memoryBudgetMB=128']);
    const [pusher] = find(objects, 'Deployment', 'pusher');
    expect(env(pusher?.spec.template.spec.containers[0], 'HOOKSTREAM_MEMORY_BUDGET_MB')?.value).toBe('128');
  });

  it('passes --match only when set', async () => {
    const { objects } = await template([], ['pusher.match=orders-*\\,billing']);
    const [pusher] = find(objects, 'Deployment', 'pusher');
    expect(pusher?.spec.template.spec.containers[0].args.slice(-2)).toEqual(['--match', 'orders-*,billing']);
  });

  it('has a KEDA ScaledObject only when enabled, on each subscriber group, owning the replicas', () => {
    for (const c of ['default', 'sasl'] as const) {
      expect(find(get(c), 'ScaledObject')).toEqual([]);
      expect(find(get(c), 'TriggerAuthentication')).toEqual([]);
    }
    expect(deployment('sasl', 'pusher').object.spec.replicas).toBe(3);
    const { object } = deployment('keda', 'pusher');
    expect(object.spec.replicas).toBeUndefined();
    const [scaled] = find(get('keda'), 'ScaledObject', 'pusher');
    expect(scaled?.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: object.metadata.name });
    expect(
      scaled?.spec.triggers.map((t: { metadata: { consumerGroup: string } }) => t.metadata.consumerGroup),
    ).toEqual(['hookstream.sub.orders-webhook', 'hookstream.sub.shipments.partner_a']);
    // Without SASL or TLS there is nothing to authenticate with.
    expect(find(get('keda'), 'TriggerAuthentication')).toEqual([]);
    expect(scaled?.spec.triggers[0].authenticationRef).toBeUndefined();
  });

  it('gives KEDA the same Kafka credentials, by the same Secret references', () => {
    const [scaled] = find(get('saslKeda'), 'ScaledObject');
    const [auth] = find(get('saslKeda'), 'TriggerAuthentication');
    expect(scaled?.spec.triggers[0].metadata).toMatchObject({ sasl: 'scram_sha512', tls: 'enable' });
    expect(scaled?.spec.triggers[0].authenticationRef).toEqual({ name: auth?.metadata.name });
    expect(auth?.spec.secretTargetRef).toEqual([
      { parameter: 'password', name: 'hookstream-kafka-sasl', key: 'password' },
      { parameter: 'ca', name: 'kafka-ca', key: 'ca.crt' },
      { parameter: 'cert', name: 'hookstream-kafka-client', key: 'tls.crt' },
      { parameter: 'key', name: 'hookstream-kafka-client', key: 'tls.key' },
    ]);
  });
});

describe('the management API', () => {
  it('is not deployed unless enabled', () => {
    for (const c of ['default', 'sasl', 'keda', 'saslKeda'] as const) {
      expect(find(get(c), 'Deployment', 'api')).toEqual([]);
      expect(find(get(c), 'Service', 'api')).toEqual([]);
    }
  });

  it('runs hookstream api on 0.0.0.0:8070 with tokens from a mounted Secret, behind its Service', () => {
    const { object, pod } = deployment('api', 'api');
    const ctr = container(pod);
    expect(ctr.args).toEqual([
      'api',
      '--host',
      '0.0.0.0',
      '--port',
      '8070',
      '--rate',
      '50',
      '--max-subscribers',
      '100',
    ]);
    expect(ctr.ports).toEqual([{ name: 'http', containerPort: 8070, protocol: 'TCP' }]);
    expect(env(ctr, 'HOOKSTREAM_API_LOG_LEVEL')?.value).toBe('info');
    // The tokens are a file from the Secret, never a variable holding them.
    expect(env(ctr, 'HOOKSTREAM_API_TOKENS')).toBeUndefined();
    const tokens = env(ctr, 'HOOKSTREAM_API_TOKENS_FILE')?.value ?? '';
    const mount = ctr.volumeMounts?.find((m) => tokens.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    expect(pod.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName).toBe(
      'hookstream-api-tokens',
    );
    // The document needs no token and no Kafka: the probes see the process serve HTTP.
    expect(ctr.readinessProbe?.httpGet).toEqual({ path: '/v1/openapi.json', port: 'http' });
    expect(ctr.livenessProbe?.httpGet).toEqual({ path: '/v1/openapi.json', port: 'http' });
    expect(object.spec.replicas).toBe(2);
    const [service] = find(get('api'), 'Service', 'api');
    expect(service?.spec.ports).toEqual([{ name: 'http', port: 8070, targetPort: 'http', protocol: 'TCP' }]);
    expect(service?.spec.selector).toEqual(object.spec.selector.matchLabels);
    // Replay jobs live in the replica that started them: a client stays on one.
    expect(service?.spec.sessionAffinity).toBe('ClientIP');
    // No other component's pods are selected by it, nor its pods by theirs.
    for (const other of ['ingress', 'pusher'] as const)
      expect(deployment('api', other).object.spec.selector.matchLabels).not.toEqual(
        object.spec.selector.matchLabels,
      );
  });

  it("follows the release's events topic, rate and log level", async () => {
    const { objects } = await template(VALUES.api, [
      'eventsTopic=orders',
      'api.rate=200',
      'api.logLevel=warn',
    ]);
    const [api] = find(objects, 'Deployment', 'api');
    const ctr = api?.spec.template.spec.containers[0] as Container;
    expect(ctr.args?.slice(-4, -2)).toEqual(['--rate', '200']);
    expect(env(ctr, 'HOOKSTREAM_EVENTS_TOPIC')?.value).toBe('orders');
    expect(env(ctr, 'HOOKSTREAM_API_LOG_LEVEL')?.value).toBe('warn');
    expect(env(container(deployment('api', 'api').pod), 'HOOKSTREAM_EVENTS_TOPIC')).toBeUndefined();
  });

  it("passes the tenants' quotas, and refuses one that is not a count", async () => {
    const { objects } = await template(VALUES.api, [
      'api.maxSubscribers=20',
      'api.tenantQuotas.globex=5',
      'api.tenantQuotas.acme=500',
    ]);
    const [api] = find(objects, 'Deployment', 'api');
    const args = (api?.spec.template.spec.containers[0] as Container | undefined)?.args ?? [];
    expect(args.slice(args.indexOf('--max-subscribers'))).toEqual([
      '--max-subscribers',
      '20',
      '--tenant-quotas',
      'acme=500,globex=5',
    ]);
    await expect(template(VALUES.api, ['api.tenantQuotas.acme=-1'])).rejects.toThrow(/tenantQuotas/);
  });

  it("opens managed secrets with the pusher's key unless given its own", async () => {
    expect(env(container(deployment('api', 'api').pod), 'HOOKSTREAM_SECRETS_KEY')).toBeUndefined();
    const key = (objects: K8sObject[], component: Component) =>
      env(
        find(objects, 'Deployment', component)[0]?.spec.template.spec.containers[0],
        'HOOKSTREAM_SECRETS_KEY',
      )?.valueFrom?.secretKeyRef;
    const api = get('saslApi');
    expect(key(api, 'api')).toEqual({ name: 'hookstream-secrets-key', key: 'key' });
    expect(key(api, 'api')).toEqual(key(api, 'pusher'));
    const { objects } = await template(VALUES.api, ['api.secretsKey.secretName=api-key']);
    expect(key(objects, 'api')).toEqual({ name: 'api-key', key: 'key' });
  });

  it('connects as its own principal when set, with every other connection setting shared', () => {
    const api = container(deployment('saslApi', 'api').pod);
    const pusher = container(deployment('saslApi', 'pusher').pod);
    const shared = (c: Container) =>
      (c.env ?? [])
        .filter((e) => /^(KAFKA_|REGISTRY_|HOOKSTREAM_LIMITER_REDIS|OTEL_)/.test(e.name))
        .filter((e) => e.name !== 'KAFKA_SASL_USERNAME')
        .map((e) => JSON.stringify(e));
    expect(shared(api)).toEqual(shared(pusher));
    expect(env(api, 'KAFKA_SASL_USERNAME')?.value).toBe('hookstream-api');
    expect(env(pusher, 'KAFKA_SASL_USERNAME')?.value).toBe('hookstream');
    const passwordSecret = (component: Component) =>
      deployment('saslApi', component).pod.volumes?.find((v) => v.name === 'kafka-sasl')?.secret?.secretName;
    expect(passwordSecret('api')).toBe('hookstream-api-kafka-sasl');
    expect(passwordSecret('pusher')).toBe('hookstream-kafka-sasl');
    expect(passwordSecret('ingress')).toBe('hookstream-kafka-sasl');
    // Without its own, the API shares kafka.sasl's principal as the others do.
    expect(env(container(deployment('api', 'api').pod), 'KAFKA_SASL_USERNAME')).toBeUndefined();
  });

  it('fails the render on an API setting that cannot work, naming it', async () => {
    expect(await templateError(['api.enabled=true', 'api.tokens.secretName='])).toMatch(
      /api\/tokens\/secretName/,
    );
    expect(await templateError(['api.kafkaSasl.username=a'])).toMatch(/kafka\.sasl\.mechanism is empty/);
    expect(
      await templateError([
        'kafka.sasl.mechanism=plain',
        'kafka.sasl.username=u',
        'kafka.sasl.passwordSecret.name=s',
        'api.kafkaSasl.username=a',
      ]),
    ).toMatch(/api\.kafkaSasl: set both username and passwordSecret\.name/);
    expect(await templateError(['api.service.sessionAffinity=Sticky'])).toMatch(
      /api\/service\/sessionAffinity/,
    );
    expect(await templateError(['api.kafkaSasl.password=hunter2'])).toMatch(
      /additional properties 'password'/,
    );
  });
});

describe('connection settings and secrets', () => {
  it('sets the shared connection variables the same way in both components', () => {
    const names = (component: 'ingress' | 'pusher') =>
      (container(deployment('sasl', component).pod).env ?? [])
        .filter((e) => /^(KAFKA_|REGISTRY_|HOOKSTREAM_LIMITER_REDIS|OTEL_)/.test(e.name))
        .map((e) => JSON.stringify(e));
    expect(names('ingress')).toEqual(names('pusher'));
    const ctr = container(deployment('sasl', 'pusher').pod);
    expect(env(ctr, 'KAFKA_TLS')?.value).toBe('true');
    expect(env(ctr, 'KAFKA_TLS_CHECK_SERVER_NAME')?.value).toBe('true');
    expect(env(ctr, 'KAFKA_SASL_MECHANISM')?.value).toBe('scram-sha-512');
    expect(env(ctr, 'KAFKA_SASL_USERNAME')?.value).toBe('hookstream');
    expect(env(ctr, 'OTEL_EXPORTER_OTLP_ENDPOINT')?.value).toBe('http://otel-collector.observability:4318');
    expect(env(ctr, 'HOOKSTREAM_SECRETS_KEY')?.valueFrom?.secretKeyRef).toEqual({
      name: 'hookstream-secrets-key',
      key: 'key',
    });
    expect(env(ctr, 'HOOKSTREAM_LIMITER_REDIS')?.valueFrom?.secretKeyRef).toEqual({
      name: 'hookstream-redis',
      key: 'url',
    });
    // The password is a file; the plain-env variant is for local use only.
    expect(env(ctr, 'KAFKA_SASL_PASSWORD')).toBeUndefined();
    const plain = container(deployment('default', 'pusher').pod);
    expect(env(plain, 'KAFKA_TLS')?.value).toBe('false');
    expect(
      plain.env?.filter((e) => /^KAFKA_(TLS_|SASL_)|^REGISTRY_(USERNAME|PASSWORD|CA)/.test(e.name)),
    ).toEqual([]);
  });

  it.each(['sasl', 'saslKeda', 'saslApi'] as const)(
    'points every *_FILE variable into a read-only Secret mount (%s)',
    (c) => {
      for (const component of components(c)) {
        const { pod } = deployment(c, component);
        const ctr = container(pod);
        const files = (ctr.env ?? []).filter((e) => e.name.endsWith('_FILE'));
        expect(files.map((e) => e.name).sort()).toEqual(
          [
            'KAFKA_SASL_PASSWORD_FILE',
            'KAFKA_TLS_CA_FILE',
            'KAFKA_TLS_CERT_FILE',
            'KAFKA_TLS_KEY_FILE',
            'REGISTRY_CA_FILE',
            'REGISTRY_PASSWORD_FILE',
            ...(component === 'ingress' ? ['INGRESS_TOKENS_FILE'] : []),
            ...(component === 'api' ? ['HOOKSTREAM_API_TOKENS_FILE'] : []),
          ].sort(),
        );
        for (const file of files) {
          const mount = ctr.volumeMounts?.find((m) => file.value?.startsWith(`${m.mountPath}/`));
          expect(mount?.readOnly, file.name).toBe(true);
          const volume = pod.volumes?.find((v) => v.name === mount?.name);
          const fromSecret =
            volume?.secret !== undefined || volume?.projected?.sources.every((s) => s.secret);
          expect(fromSecret, file.name).toBe(true);
        }
      }
    },
  );

  it('renders no Secret and no secret data: every credential is referenced, none is carried', () => {
    for (const c of Object.keys(VALUES) as Case[]) {
      const { text, objects } = rendered.get(c) ?? { text: '', objects: [] };
      expect(find(objects, 'Secret')).toEqual([]);
      expect(text).not.toMatch(/^\s*(data|stringData):/m);
      // An env var whose name says it holds a secret is always a secretKeyRef, never a value.
      for (const component of components(c)) {
        for (const e of container(deployment(c, component).pod).env ?? []) {
          if (/PASSWORD$|_KEY$|TOKENS$|REDIS$/.test(e.name)) {
            expect(e.value, e.name).toBeUndefined();
            expect(e.valueFrom?.secretKeyRef, e.name).toBeDefined();
          }
        }
      }
    }
  });
});

describe('tracing', () => {
  /** The sampler variables of every component's container, as name=value. */
  const sampling = (objects: K8sObject[], component: Component) => {
    const [object] = find(objects, 'Deployment', component);
    const ctr = object?.spec.template.spec.containers[0] as Container;
    return Object.fromEntries(
      (ctr.env ?? []).filter((e) => e.name.startsWith('OTEL_TRACES_SAMPLER')).map((e) => [e.name, e.value]),
    );
  };

  it.each(Object.keys(VALUES) as Case[])(
    'samples a tenth of new traces in every component by default, which the components accept (%s)',
    (c) => {
      for (const component of components(c)) {
        const vars = sampling(get(c), component);
        expect(vars).toEqual({
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: '0.1',
        });
        // What the process reads at start-up (a value it refused would stop every pod).
        expect(loadTracingConfig(vars)).toEqual({ sampler: 'parentbased_traceidratio', ratio: 0.1 });
      }
    },
  );

  it('takes another ratio as a number or as --set text, null for neither variable, and refuses one out of range', async () => {
    const ratio = async (set: string, values: readonly string[] = VALUES.api) => {
      const { objects } = await template(values, [set]);
      return components('api').map((component) => sampling(objects, component).OTEL_TRACES_SAMPLER_ARG);
    };
    // --set passes 0.05 as a string, 1 as a number: both render what the components read.
    expect(await ratio('otel.sampleRatio=0.05')).toEqual(['0.05', '0.05', '0.05']);
    expect(await ratio('otel.sampleRatio=1')).toEqual(['1', '1', '1']);
    const { objects } = await template(VALUES.api, ['otel.sampleRatio=null']);
    for (const component of components('api')) expect(sampling(objects, component)).toEqual({});
    expect(await templateError(['otel.sampleRatio=1.5'])).toMatch(/otel\/sampleRatio/);
    expect(await templateError(['otel.sampleRatio=ten-percent'])).toMatch(/otel\/sampleRatio/);
    expect(await templateError(['otel.sampleRatio=-0.1'])).toMatch(/otel\/sampleRatio/);
  });
});

describe('labels', () => {
  it('puts the app.kubernetes.io labels on every object', () => {
    for (const o of get('saslKeda')) {
      expect(o.metadata.labels, `${o.kind}/${o.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'hookstream',
        'app.kubernetes.io/instance': 'hs',
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/part-of': 'hookstream',
        'app.kubernetes.io/version': '0.1.0',
      });
    }
  });
});
