import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { probeCluster } from '@hookstream/kafka';
import type { Component, LaunchSpec, PrepareOptions } from '../component.ts';
import { type StackConfig, VERSIONS } from '../config.ts';
import { StackError } from '../errors.ts';
import { runInstallStep } from '../install-step.ts';
import type { Reporter } from '../progress.ts';
import { requireCommand, requireJava } from '../tools.ts';

const run = promisify(execFile);
const RESOURCES = join(import.meta.dirname, '../../resources');

/** One KRaft node (combined broker+controller) of a cluster of one or more. */
export interface KafkaNodeSpec {
  /** Component name: `kafka` for the local stack, `kafka-<id>` in a test cluster. */
  readonly name: string;
  readonly nodeId: number;
  readonly port: number;
  readonly controllerPort: number;
  /** Every controller of the cluster as `id@host:port`, comma-separated. */
  readonly voters: string;
  /** Shared by every node of one cluster; formatted into each node's storage. */
  readonly clusterId?: string;
  readonly replicationFactor: number;
  readonly minInSyncReplicas: number;
  readonly heap: string;
  /** A SASL_SSL listener beside the plaintext one, with ACLs enforced; absent: plaintext only. */
  readonly secure?: SecureListenerSpec;
}

/**
 * SASL_SSL with SCRAM users and KRaft's StandardAuthorizer. The plaintext listener stays, its
 * (anonymous) clients super users: it is how a test sets up topics and ACLs, while components
 * under test connect to the secure port as their own principals.
 */
export interface SecureListenerSpec {
  readonly port: number;
  /** PEM file holding the broker's private key (PKCS#8, unencrypted) and certificate chain. */
  readonly keystorePem: string;
  /** PEM CA bundle client certificates are checked against. */
  readonly truststorePem: string;
  /** required: mTLS, a client without a certificate signed by the truststore is refused. */
  readonly clientAuth: 'required' | 'none';
  /** Created when the storage is formatted, for SCRAM-SHA-256 and SCRAM-SHA-512. */
  readonly scramUsers: readonly { readonly name: string; readonly password: string }[];
}

/** The local stack's single broker. */
export function singleNode(config: StackConfig): KafkaNodeSpec {
  const { port, controllerPort } = config.kafka;
  return {
    name: 'kafka',
    nodeId: 1,
    port,
    controllerPort,
    voters: `1@${config.host}:${controllerPort}`,
    replicationFactor: 1,
    minInSyncReplicas: 1,
    heap: '1g',
  };
}

/** Where `stack up` puts Kafka's jars (broker and tools, e.g. the perf-test classes). */
export function kafkaLibsDir(config: StackConfig): string {
  return join(config.cacheDir, `kafka-${VERSIONS.kafka}`, 'libs');
}

/** Kafka resolved from Maven Central, run as one KRaft node. */
export class KafkaComponent implements Component {
  readonly name: string;
  readonly required = true;
  readonly background = false;
  readonly version = VERSIONS.kafka;
  readonly ports: readonly number[];
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly #config: StackConfig;
  readonly #node: KafkaNodeSpec;
  readonly #home: string;
  readonly #libs: string;
  readonly #dir: string;

  constructor(config: StackConfig, node: KafkaNodeSpec = singleNode(config)) {
    this.#config = config;
    this.#node = node;
    this.name = node.name;
    this.ports = [node.port, node.controllerPort, ...(node.secure ? [node.secure.port] : [])];
    this.endpoints = { bootstrap: `${config.host}:${node.port}` };
    this.#libs = kafkaLibsDir(config);
    this.#home = dirname(this.#libs);
    this.#dir = join(config.stateDir, node.name);
    this.logFile = join(config.stateDir, 'logs', `${node.name}.log`);
  }

  async skipReason(): Promise<string | null> {
    return null;
  }

  async install(report: Reporter): Promise<void> {
    const complete = join(this.#home, '.complete');
    if (existsSync(complete)) return;
    await requireJava(17, 'Kafka');
    const mvn = await requireCommand('mvn', 'Resolving Kafka from Maven Central');
    await mkdir(this.#home, { recursive: true });
    // Maven writes target/ beside the POM, so it runs on a copy inside the cache.
    await copyFile(join(RESOURCES, 'kafka-pom.xml'), join(this.#home, 'pom.xml'));
    await runInstallStep(
      {
        component: this.name,
        label: `resolving Apache Kafka ${VERSIONS.kafka} from Maven Central (first run only)`,
        command: mvn,
        args: [
          '-B',
          `-Dkafka.version=${VERSIONS.kafka}`,
          `-Dlog4j.version=${VERSIONS.log4j}`,
          `-Dslf4j.version=${VERSIONS.slf4j}`,
          'dependency:copy-dependencies',
          `-DoutputDirectory=${this.#libs}`,
          '-DincludeScope=runtime',
        ],
        cwd: this.#home,
        logFile: join(this.#home, 'install.log'),
        progressLine: /Downloaded from/,
        progressNoun: 'files downloaded',
      },
      report,
    );
    await writeFile(complete, `${new Date().toISOString()}\n`);
  }

  async prepare(report: Reporter, options: PrepareOptions): Promise<LaunchSpec> {
    const java = await requireJava(17, 'Kafka');
    // A test run's scratch data sits beside the kept data, which it never touches.
    const dataDir = join(this.#dir, options.scratchData ? 'scratch-data' : 'data');
    if (options.scratchData) await rm(dataDir, { recursive: true, force: true });
    const properties = join(this.#dir, 'server.properties');
    const log4j = join(this.#dir, 'log4j2.properties');
    await mkdir(dataDir, { recursive: true });
    await writeFile(properties, serverProperties(this.#config.host, this.#node, dataDir));
    await writeFile(log4j, log4jProperties(this.logFile));
    const classpath = `${this.#libs}/*`;
    if (!existsSync(join(dataDir, 'meta.properties'))) {
      report(this.name, `formatting KRaft storage in ${dataDir}`);
      try {
        await run(java, [
          `-Dlog4j2.configurationFile=${log4j}`,
          '-cp',
          classpath,
          'kafka.tools.StorageTool',
          'format',
          '-t',
          this.#node.clusterId ?? newClusterId(),
          '-c',
          properties,
          ...scramFlags(this.#node.secure),
        ]);
      } catch (err) {
        throw new StackError('START_FAILED', `kafka: formatting storage failed: ${(err as Error).message}`);
      }
    }
    return {
      command: java,
      args: [
        '-Xms256m',
        `-Xmx${this.#node.heap}`,
        '-XX:+UseG1GC',
        '-Djava.awt.headless=true',
        `-Dlog4j2.configurationFile=${log4j}`,
        '-cp',
        classpath,
        'kafka.Kafka',
        properties,
      ],
      cwd: this.#dir,
      logFile: join(this.#config.stateDir, 'logs', `${this.#node.name}.stdout.log`),
      marker: properties,
      ...(options.scratchData ? { scratchDirs: [dataDir] } : {}),
    };
  }

  async isReady(): Promise<boolean> {
    // A single broker is ready once it serves consumer groups too; in a cluster each node is
    // probed alone while the others may still be starting, so only metadata is asked there.
    const groupCoordinator = this.#node.replicationFactor === 1;
    return (
      (await probeCluster({ brokers: [this.endpoints.bootstrap ?? ''] }, 1500, { groupCoordinator })) !== null
    );
  }
}

/**
 * Kafka cluster ids are 16 random bytes in URL-safe base64 without padding. One in 64 starts
 * with '-', which the storage tool's `-t` reads as an option; Kafka's own Uuid.randomUuid draws
 * again in that case, and so does this.
 */
export function newClusterId(random: () => Buffer = () => randomBytes(16)): string {
  for (;;) {
    const id = random().toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** One --add-scram per user and mechanism: KRaft stores SCRAM credentials in its metadata log. */
function scramFlags(secure: SecureListenerSpec | undefined): string[] {
  return (secure?.scramUsers ?? []).flatMap((u) =>
    ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => [
      '--add-scram',
      `${m}=[name=${u.name},password=${u.password}]`,
    ]),
  );
}

function securityProperties(host: string, secure: SecureListenerSpec): string[] {
  const scram = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
  return [
    'sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512',
    `listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=${scram}`,
    `listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=${scram}`,
    'listener.name.sasl_ssl.ssl.keystore.type=PEM',
    `listener.name.sasl_ssl.ssl.keystore.location=${secure.keystorePem}`,
    'listener.name.sasl_ssl.ssl.truststore.type=PEM',
    `listener.name.sasl_ssl.ssl.truststore.location=${secure.truststorePem}`,
    `listener.name.sasl_ssl.ssl.client.auth=${secure.clientAuth}`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    // ANONYMOUS: the controller and plaintext listeners (setup, on loopback only).
    'super.users=User:ANONYMOUS',
    'allow.everyone.if.no.acl.found=false',
    `# SASL_SSL on ${host}:${secure.port}`,
  ];
}

function serverProperties(host: string, node: KafkaNodeSpec, dataDir: string): string {
  const rf = node.replicationFactor;
  const secure = node.secure;
  const saslSsl = secure ? `,SASL_SSL://${host}:${secure.port}` : '';
  return `${[
    '# Written by `hookstream stack up`; edits are overwritten on the next start.',
    'process.roles=broker,controller',
    `node.id=${node.nodeId}`,
    `controller.quorum.voters=${node.voters}`,
    `listeners=PLAINTEXT://${host}:${node.port}${saslSsl},CONTROLLER://${host}:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://${host}:${node.port}${saslSsl}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${secure ? ',SASL_SSL:SASL_SSL' : ''}`,
    ...(secure ? securityProperties(host, secure) : []),
    `log.dirs=${dataDir}`,
    // hookstream provisions every topic explicitly, with its retention and partitions.
    'auto.create.topics.enable=false',
    'num.partitions=3',
    `default.replication.factor=${rf}`,
    `min.insync.replicas=${node.minInSyncReplicas}`,
    `offsets.topic.replication.factor=${rf}`,
    'offsets.topic.num.partitions=10',
    `transaction.state.log.replication.factor=${rf}`,
    `transaction.state.log.min.isr=${node.minInSyncReplicas}`,
    `share.coordinator.state.topic.replication.factor=${rf}`,
    `share.coordinator.state.topic.min.isr=${node.minInSyncReplicas}`,
    // A new consumer group starts at once instead of waiting 3 s for more members.
    'group.initial.rebalance.delay.ms=0',
  ].join('\n')}\n`;
}

function log4jProperties(logFile: string): string {
  return `${[
    'appender.file.type = File',
    'appender.file.name = FILE',
    `appender.file.fileName = ${logFile}`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = INFO',
    'rootLogger.appenderRef.file.ref = FILE',
    'logger.kafka.name = kafka',
    'logger.kafka.level = INFO',
    'logger.state.name = state.change.logger',
    'logger.state.level = WARN',
  ].join('\n')}\n`;
}
