/**
 * CRC-32C (Castagnoli), the checksum of Kafka record batches, eight bytes a step ("slicing by
 * 8"). kafkajs computes it a byte at a time over every batch it produces; the result is the
 * same number (unsigned 32-bit), pinned by this package's tests against kafkajs's own.
 */
export function crc32c(buf: Uint8Array): number {
  let crc = -1;
  let i = 0;
  const whole = buf.length - (buf.length % 8);
  while (i < whole) {
    const low =
      crc ^
      ((buf[i] as number) |
        ((buf[i + 1] as number) << 8) |
        ((buf[i + 2] as number) << 16) |
        ((buf[i + 3] as number) << 24));
    crc =
      (T[7 * 256 + (low & 0xff)] as number) ^
      (T[6 * 256 + ((low >>> 8) & 0xff)] as number) ^
      (T[5 * 256 + ((low >>> 16) & 0xff)] as number) ^
      (T[4 * 256 + (low >>> 24)] as number) ^
      (T[3 * 256 + (buf[i + 4] as number)] as number) ^
      (T[2 * 256 + (buf[i + 5] as number)] as number) ^
      (T[256 + (buf[i + 6] as number)] as number) ^
      (T[buf[i + 7] as number] as number);
    i += 8;
  }
  while (i < buf.length) crc = (T[(crc ^ (buf[i++] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** Eight tables of 256: T[k*256+n] is the CRC of byte n followed by k zero bytes. */
const T = (() => {
  const table = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = table[n] as number;
    for (let k = 1; k < 8; k++) {
      c = (table[c & 0xff] as number) ^ (c >>> 8);
      table[k * 256 + n] = c;
    }
  }
  return table;
})();
