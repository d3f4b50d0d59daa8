import { KafkaAdmin } from '../admin/kafka-admin.ts';
import type { AccessContext } from './access-refusal.ts';
import { type KafkaClientOptions, newKafkaClient } from './client.ts';
import { bindKafkaClient } from './raw-client.ts';
import { checkTlsAccess } from './tls-preflight.ts';

/**
 * A handle on one Kafka cluster: what RecordSender, SubscriberConsumer, readTopic and the admin
 * are built from. It carries no kafkajs type, so the client behind it can be replaced without
 * touching its users. Cheap: nothing connects until an admin, sender or consumer does.
 */
export class KafkaConnection {
  readonly clientId: string;

  constructor(options: KafkaClientOptions) {
    this.clientId = options.clientId;
    const context = { tls: options.tls, sasl: options.sasl };
    bindKafkaClient(this, newKafkaClient(options), context, onceTlsChecked(options, context));
  }

  /** An admin client of its own; connect() before use, disconnect() after. */
  admin(): KafkaAdmin {
    return new KafkaAdmin(this);
  }
}

/** Builds a connection; the rest of hookstream never constructs a Kafka client itself. */
export function createKafka(options: KafkaClientOptions): KafkaConnection {
  return new KafkaConnection(options);
}

/** The connection's TLS check, run once however many admins connect; none without TLS. */
function onceTlsChecked(
  options: KafkaClientOptions,
  context: AccessContext,
): (() => Promise<void>) | undefined {
  const tls = options.tls;
  if (!tls) return undefined;
  let checked: Promise<void> | null = null;
  return () => {
    checked ??= checkTlsAccess(options.brokers, tls, context, options.connectionTimeoutMs ?? 3000);
    return checked;
  };
}
