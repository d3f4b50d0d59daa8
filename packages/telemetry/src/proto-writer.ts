/** A growable protobuf writer with in-place length prefixes (see start()/finish()). */
export class ProtoWriter {
  buffer: Uint8Array;
  pos = 0;
  #view: DataView;

  constructor(size = 64 * 1024) {
    this.buffer = new Uint8Array(size);
    this.#view = new DataView(this.buffer.buffer);
  }

  reset(): void {
    this.pos = 0;
  }

  ensure(size: number): void {
    const needed = this.pos + size;
    if (needed <= this.buffer.length) return;
    let length = this.buffer.length * 2;
    while (length < needed) length *= 2;
    const grown = new Uint8Array(length);
    grown.set(this.buffer.subarray(0, this.pos));
    this.buffer = grown;
    this.#view = new DataView(grown.buffer);
  }

  /** Reserves one byte for a length; finish() widens it when the content is 128 bytes or more. */
  start(): number {
    this.ensure(1);
    return this.pos++;
  }

  finish(at: number): void {
    const length = this.pos - at - 1;
    if (length < 128) {
      this.buffer[at] = length;
      return;
    }
    const size = varintSize(length);
    this.ensure(size - 1);
    this.buffer.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    let p = at;
    let v = length;
    while (v > 127) {
      this.buffer[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    this.buffer[p] = v;
  }

  /**
   * Reserves two bytes for a length, for messages that are usually 128 bytes to 16 KiB (a span):
   * finish2() then writes it in place instead of moving the content.
   */
  start2(): number {
    this.ensure(2);
    const at = this.pos;
    this.pos += 2;
    return at;
  }

  finish2(at: number): void {
    const length = this.pos - at - 2;
    if (length >= 128 && length < 16384) {
      this.buffer[at] = (length & 127) | 128;
      this.buffer[at + 1] = length >>> 7;
      return;
    }
    // Outside that range: back to the one-byte reservation's handling.
    this.buffer.copyWithin(at + 1, at + 2, this.pos);
    this.pos -= 1;
    this.finish(at);
  }

  tag(field: number, wireType: number): void {
    const tag = (field << 3) | wireType;
    if (tag > 127) this.varint(tag);
    else {
      this.ensure(1);
      this.buffer[this.pos++] = tag;
    }
  }

  varint(value: number): void {
    this.ensure(10);
    const b = this.buffer;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 127) {
        b[this.pos++] = (v & 127) | 128;
        v >>>= 7;
      }
      b[this.pos++] = v;
      return;
    }
    // 64-bit two's complement, as the SDK writes int64 values beyond 32 bits and negatives.
    const abs = Math.abs(value);
    let low = abs >>> 0;
    let high = (abs / 4294967296) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 127) {
      b[this.pos++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    b[this.pos++] = low & 127;
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.#view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  fixed64(low: number, high: number): void {
    this.ensure(8);
    this.#view.setUint32(this.pos, low >>> 0, true);
    this.#view.setUint32(this.pos + 4, high >>> 0, true);
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.#view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.pos);
    this.pos += value.length;
  }

  string(value: string): void {
    const length = value.length;
    for (let i = 0; i < length; i++) {
      if (value.charCodeAt(i) > 127) {
        this.bytes(textEncoder.encode(value));
        return;
      }
    }
    this.varint(length);
    this.ensure(length);
    const b = this.buffer;
    let p = this.pos;
    for (let i = 0; i < length; i++) b[p++] = value.charCodeAt(i);
    this.pos = p;
  }

  /** A hex trace or span id as its bytes. */
  hex(value: string): void {
    const length = value.length >>> 1;
    this.varint(length);
    this.ensure(length);
    const b = this.buffer;
    let p = this.pos;
    for (let i = 0; i < value.length; i += 2)
      b[p++] = HEX_PAIRS[(value.charCodeAt(i) << 7) | (value.charCodeAt(i + 1) & 127)] as number;
    this.pos = p;
  }

  raw(value: Uint8Array): void {
    const length = value.length;
    this.ensure(length);
    if (length > 16) this.buffer.set(value, this.pos);
    else {
      // A loop beats set() (a native call) for the short pieces written per attribute.
      const b = this.buffer;
      const p = this.pos;
      for (let i = 0; i < length; i++) b[p + i] = value[i] as number;
    }
    this.pos += length;
  }
}

const textEncoder = new TextEncoder();

/** The byte of two hex digits by their char codes (high << 7 | low), a lookup instead of branches per digit. */
const HEX_PAIRS = (() => {
  const table = new Uint8Array(128 * 128);
  for (let hi = 0; hi < 128; hi++)
    for (let lo = 0; lo < 128; lo++) table[(hi << 7) | lo] = ((hexValue(hi) << 4) | hexValue(lo)) & 255;
  return table;
})();

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return code - 55;
}

function varintSize(value: number): number {
  let size = 1;
  for (let v = value >>> 7; v > 0; v >>>= 7) size++;
  return size;
}
