import { ECDSASigValue } from '@peculiar/asn1-ecc';
import {
  AsnIntegerArrayBufferConverter,
  AsnParser,
  AsnProp,
  AsnPropTypes,
  AsnType,
  AsnTypeTypes,
} from '@peculiar/asn1-schema';

/**
 * Works around two copies of `@peculiar/asn1-schema` in the installed tree (2.6.0 hoisted, where
 * @simplewebauthn/server's `AsnParser` comes from, and 2.11.1 under `@peculiar/asn1-ecc`, where the
 * `ECDSASigValue` schema is registered): each copy keeps its own schema storage, so every ES256
 * assertion failed with "Cannot get schema for 'ECDSASigValue' target" (SimpleWebAuthn issue #808).
 * When the parser the server library uses does not know the schema, it is declared there too, with
 * the same fields (RFC 5480 §2.2.3: `SEQUENCE { r INTEGER, s INTEGER }`). Does nothing once the tree
 * has one copy (`npm dedupe`), and can then go.
 */
export function ensureEcdsaSchema(): void {
  // A DER ECDSA signature with r = s = 1.
  const probe = new Uint8Array([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]);
  try {
    AsnParser.parse(probe, ECDSASigValue);
    return;
  } catch {
    // Not registered in this copy: declare it below.
  }
  AsnType({ type: AsnTypeTypes.Sequence })(ECDSASigValue);
  const integer = { type: AsnPropTypes.Integer, converter: AsnIntegerArrayBufferConverter };
  AsnProp(integer)(ECDSASigValue.prototype, 'r');
  AsnProp(integer)(ECDSASigValue.prototype, 's');
}
