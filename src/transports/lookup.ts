import { promises as dns } from 'node:dns';
import net from 'node:net';
import { refusedAddress, refusedHost } from '../lib/safe-http.js';

const SETTING = 'TRANSPORT_ALLOW_PRIVATE_ADDRESSES';

/** What {@link checkHost} found: the address to connect to, or why there is none, in words. */
export type HostCheck = { ok: true; address: string } | { ok: false; kind: 'refused' | 'lookup'; reason: string };

/**
 * The address a project's SMTP transport may connect to for `host`: the host itself when it is an IP
 * literal the rules allow, else the first of its addresses that is public (or private too with
 * TRANSPORT_ALLOW_PRIVATE_ADDRESSES); cloud metadata and link-local addresses are always refused
 * (lib/safe-http.ts rules). A project's admin chooses the host; without this a transport would reach
 * the instance's own network. Used at each new connection (so a name that later points inside the
 * network is refused then) and by the test call (transport-test.ts), so both judge a host alike.
 */
export async function checkHost(host: string, allowPrivate: boolean): Promise<HostCheck> {
  const literal = refusedHost(host, allowPrivate, SETTING);
  if (literal) return { ok: false, kind: 'refused', reason: literal };
  const bare = host.replace(/^\[|\]$/g, '');
  if (net.isIP(bare)) return { ok: true, address: bare };
  let addresses: Array<{ address: string }>;
  try {
    addresses = await dns.lookup(bare, { all: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, kind: 'lookup', reason: e.code === 'ENOTFOUND' ? 'no such host' : e.message };
  }
  if (!addresses.length) return { ok: false, kind: 'lookup', reason: 'it has no address' };
  let why: string | null = null;
  for (const { address } of addresses) {
    why = refusedAddress(address, allowPrivate, SETTING);
    if (!why) return { ok: true, address };
  }
  return { ok: false, kind: 'refused', reason: `${bare} resolves to ${why}` };
}

/**
 * {@link checkHost} for a connection: the address, or an Error a delivery counts as a transport failure
 * (transports/failures.ts): `code: 'ECONNECTION'` for a refused address, `'EDNS'` for a failed look-up.
 */
export async function checkedAddress(host: string, allowPrivate: boolean): Promise<string> {
  const c = await checkHost(host, allowPrivate);
  if (c.ok) return c.address;
  throw Object.assign(
    new Error(
      c.kind === 'refused' ? `Refused to connect to ${host}: ${c.reason}` : `Could not look up ${host}: ${c.reason}`,
    ),
    { code: c.kind === 'refused' ? 'ECONNECTION' : 'EDNS' },
  );
}
