import { HookstreamError } from '@hookstream/contracts';
import { type Caller, kafkaPorts, ManagementError, ManagementService } from '@hookstream/management';
import { LiveCatalog, OPERATOR, type SecretsKey } from '@hookstream/subscribers';
import { toolKafka } from './kafka-client.ts';
import { openNoticePublisher } from './notice-publisher.ts';
import { operatorName, toolActor } from './tool-env.ts';

/** A terminal is patient: a purge or a rewind waits this long for the fleet to leave the group. */
const CLI_RELEASE_TIMEOUT_MS = 60_000;

/**
 * Runs `work` with the management service the API runs, on this machine's Kafka settings, as the
 * operator: the CLI's changes take the same code path as the API's and the console's. The trail
 * names the OS user; a pause's `by` is `--by` or that user.
 */
export async function withLocalManagement<T>(
  options: {
    readonly eventsTopic: string;
    readonly by?: string | undefined;
    readonly secretsKey?: SecretsKey;
  },
  work: (service: ManagementService, caller: Caller) => Promise<T>,
): Promise<T> {
  const kafka = toolKafka('hookstream-subscribers');
  // A command's own warnings go to stderr; the catalog's progress stays quiet.
  const catalog = new LiveCatalog(kafka, (level, message) => {
    if (level === 'warn' || level === 'error') process.stderr.write(`${level}: ${message}\n`);
  });
  await catalog.start();
  try {
    const service = new ManagementService(
      kafkaPorts({
        kafka,
        catalog,
        eventsTopic: options.eventsTopic,
        secretsKey: options.secretsKey,
        openPublisher: () => openNoticePublisher('cli', options.eventsTopic),
        releaseTimeoutMs: CLI_RELEASE_TIMEOUT_MS,
      }),
    );
    return await work(service, { scope: OPERATOR, id: options.by ?? operatorName(), actor: toolActor() });
  } catch (err) {
    // The CLI reports the catalog's own codes (UNKNOWN_SUBSCRIBER, NOT_MANAGED…), as its usage
    // says, and an unexpected failure as it is: the API hides it (`internal`), an operator needs it.
    const unwrap =
      err instanceof ManagementError &&
      err.cause !== undefined &&
      (err.cause instanceof HookstreamError || err.code === 'internal');
    throw unwrap ? err.cause : err;
  } finally {
    await catalog.stop();
  }
}
