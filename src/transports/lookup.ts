import { promises as dns } from 'node:dns';
import net from 'node:net';
import { refusedAddress, refusedHost } from '../lib/safe-http.js';

const SETTING = 'TRANSPORT_ALLOW_PRIVATE_ADDRESSES';

/**
 * The address a project's SMTP transport connects to for `host`: the first of its addresses that is
 * public (or private too with TRANSPORT_ALLOW_PRIVATE_ADDRESSES), looked up at each new connection so a
 * name that later points inside the network is refused then (lib/safe-http.ts rules: cloud metadata
 * and link-local addresses are always refused). A project's admin chooses the host; without this a
 * transport would reach the instance's own network.
 * @throws an Error with `code: 'ECONNECTION'` (a transport failure, transports/failures.ts) naming why.
 */
export async function checkedAddress(host: string, allowPrivate: boolean): Promise<string> {
  const refusal = (message: string) => Object.assign(new Error(message), { code: 'ECONNECTION' });
  const literal = refusedHost(host, allowPrivate, SETTING);
  if (literal) throw refusal(`Refused to connect to ${host}: ${literal}`);
  if (net.isIP(host.replace(/^\[|\]$/g, ''))) return host.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await dns.lookup(host, { all: true });
  } catch (err) {
    throw Object.assign(new Error(`Could not look up ${host}: ${(err as Error).message}`), { code: 'EDNS' });
  }
  const reasons: string[] = [];
  for (const { address } of addresses) {
    const why = refusedAddress(address, allowPrivate, SETTING);
    if (!why) return address;
    reasons.push(why);
  }
  throw refusal(`Refused to connect to ${host}: ${reasons[0] ?? 'it has no address'}`);
}
