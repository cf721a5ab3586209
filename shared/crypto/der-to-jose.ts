/**
 * KMS returns ECDSA signatures DER-encoded (RFC 3279 §2.2.3: SEQUENCE { r INTEGER, s INTEGER });
 * JWS wants the fixed-size concatenation r || s, each left-padded to the curve size
 * (RFC 7518 §3.4: 32 + 32 bytes for ES256).
 */
export function derToJose(der: Uint8Array, size = 32): Buffer {
  let pos = 0;
  const byte = (): number => {
    if (pos >= der.length) throw new Error('Truncated ECDSA signature');
    return der[pos++]!;
  };
  const length = (): number => {
    const first = byte();
    if (first < 0x80) return first;
    const n = first & 0x7f;
    if (n === 0 || n > 2) throw new Error('Bad DER length');
    let len = 0;
    for (let i = 0; i < n; i++) len = (len << 8) | byte();
    return len;
  };
  const integer = (): Buffer => {
    if (byte() !== 0x02) throw new Error('Expected a DER INTEGER');
    const len = length();
    if (len === 0 || pos + len > der.length) throw new Error('Bad DER INTEGER');
    let value = Buffer.from(der.subarray(pos, pos + len));
    pos += len;
    // Strip the sign byte(s) DER adds when the high bit is set; what is left must fit the curve.
    while (value.length > 1 && value[0] === 0) value = value.subarray(1);
    if (value.length > size) throw new Error('ECDSA integer larger than the curve');
    return Buffer.concat([Buffer.alloc(size - value.length), value]);
  };
  if (byte() !== 0x30) throw new Error('Expected a DER SEQUENCE');
  const seqLen = length();
  if (pos + seqLen !== der.length) throw new Error('Bad DER SEQUENCE length');
  const r = integer();
  const s = integer();
  if (pos !== der.length) throw new Error('Trailing bytes after ECDSA signature');
  return Buffer.concat([r, s]);
}
