import { SampleReceiver } from '@hookstream/receiver';

type ReceiverOptions = ConstructorParameters<typeof SampleReceiver>[0];

/** Real HTTP endpoints for one test file: each listening on its own port, all closed at the end. */
export class ReceiverPool {
  readonly #open: SampleReceiver[] = [];

  /** A listening sample receiver that records every arrival. */
  async start(options: ReceiverOptions = {}): Promise<SampleReceiver> {
    const r = new SampleReceiver({ record: true, ...options });
    await r.listen();
    this.#open.push(r);
    return r;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#open.map((r) => r.close().catch(() => undefined)));
  }
}
