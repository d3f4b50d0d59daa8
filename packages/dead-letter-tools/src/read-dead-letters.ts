import { dlqTopicName, type SubscriberName } from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, readTopic } from '@hookstream/kafka';
import { type DeadLetter, ReplayError, readDeadLetter } from '@hookstream/replay';

/** Every record in the subscriber's DLQ right now, evidence read (bounded snapshot, no commits). */
export async function readDeadLetters(
  kafka: KafkaConnection,
  subscriber: SubscriberName,
): Promise<DeadLetter[]> {
  const topic = dlqTopicName(subscriber);
  try {
    const records = await readTopic(kafka, { topic, purpose: 'dlq' });
    return records.map(readDeadLetter);
  } catch (err) {
    throw toReplayError(err, `subscriber ${subscriber} has no DLQ topic ${topic} (has its pusher ever run?)`);
  }
}

/** Maps reader failures to the tool's error codes; `missing` explains a missing topic. */
export function toReplayError(err: unknown, missing: string): unknown {
  if (!(err instanceof KafkaReadError)) return err;
  if (err.code === 'NO_SUCH_TOPIC') return new ReplayError('NO_DLQ', missing, { cause: err });
  return new ReplayError('KAFKA_UNAVAILABLE', err.message, { cause: err });
}
