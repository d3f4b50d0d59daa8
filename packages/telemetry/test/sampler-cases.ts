import type { Sampler } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/** One sampler setting as the SDK takes it (undefined: its default) and as a lite tracer does. */
export interface SamplerCase {
  readonly sdk?: Sampler;
  readonly lite: { readonly parentBasedRoot?: Sampler; readonly sampler?: Sampler };
}

/**
 * The sampler settings every lite-tracer test compares against the SDK's, made fresh per test
 * (a ratio sampler holds no state, but a shared one would hide a test that mutates it).
 */
export const SAMPLER_CASES: Readonly<Record<string, () => SamplerCase>> = {
  'the default sampler': () => ({ lite: { parentBasedRoot: new AlwaysOnSampler() } }),
  'a parent-based ratio sampler': () => {
    const root = new TraceIdRatioBasedSampler(0.5);
    return { sdk: new ParentBasedSampler({ root }), lite: { parentBasedRoot: root } };
  },
  'parent-based, never sampling new traces': () => {
    const root = new AlwaysOffSampler();
    return { sdk: new ParentBasedSampler({ root }), lite: { parentBasedRoot: root } };
  },
  'always on, not parent-based': () => ({
    sdk: new AlwaysOnSampler(),
    lite: { sampler: new AlwaysOnSampler() },
  }),
};
