import type { Counter, Histogram, Meter } from '@opentelemetry/api';

/**
 * The ingress's instruments. Label values are bounded on purpose: event types come from the
 * catalog (only known types are counted), reasons from the error table; never ids or tokens.
 */
export class IngressMetrics {
  readonly #accepted: Counter;
  readonly #duplicates: Counter;
  readonly #rejected: Counter;
  readonly #produceDuration: Histogram;

  constructor(meter: Meter) {
    this.#accepted = meter.createCounter('hookstream.ingress.events.accepted', {
      description: 'Events written to Kafka and acknowledged (answered 202)',
      unit: '{event}',
    });
    this.#duplicates = meter.createCounter('hookstream.ingress.events.duplicate', {
      description: 'Events answered as duplicates of an id seen within the dedup window (nothing written)',
      unit: '{event}',
    });
    this.#rejected = meter.createCounter('hookstream.ingress.requests.rejected', {
      description: 'Requests answered with an error, by error code and HTTP status',
      unit: '{request}',
    });
    // The unit is in the name: this Prometheus exporter does not append it, and scrapers expect it.
    this.#produceDuration = meter.createHistogram('hookstream.ingress.produce.duration.seconds', {
      description: 'From receiving a publish request to Kafka acknowledging all of its events',
      unit: 's',
      advice: {
        explicitBucketBoundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      },
    });
  }

  /** `count` events of one type were accepted (or answered as duplicates). */
  accepted(eventType: string, duplicate: boolean, count = 1): void {
    (duplicate ? this.#duplicates : this.#accepted).add(count, { 'hookstream.event.type': eventType });
  }

  rejected(code: string, status: number): void {
    this.#rejected.add(1, { 'error.type': code, 'http.response.status_code': status });
  }

  /** Seconds from request received to every event of it acknowledged. */
  produced(route: string, seconds: number): void {
    this.#produceDuration.record(seconds, { 'http.route': route });
  }
}
