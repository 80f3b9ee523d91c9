import dns2, { type DnsHandler, type DnsServer } from 'dns2';

const { Packet } = dns2;

/** Records of one name; TXT values longer than 255 characters are split into strings on the wire. */
export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  MX?: Array<{ exchange: string; priority: number }>;
  TXT?: string[];
  NS?: string[];
}

/**
 * A real DNS server on 127.0.0.1 (dns2, UDP and TCP on one port) for domain checks and `/v1/verify`,
 * wired in through `DNS_SERVERS`. Unknown names answer NXDOMAIN; known names without the asked type
 * answer NOERROR with no records.
 */
export interface TestDnsServer {
  /** `127.0.0.1:<port>` for DNS_SERVERS. */
  address: string;
  port: number;
  set(name: string, records: DnsRecords): void;
  add(name: string, records: DnsRecords): void;
  remove(name: string): void;
  close(): Promise<void>;
}

const chunk = (s: string) => s.match(/.{1,255}/gs) ?? [''];

export async function startDnsServer(zone: Record<string, DnsRecords> = {}): Promise<TestDnsServer> {
  const records = new Map<string, DnsRecords>(Object.entries(zone).map(([k, v]) => [k.toLowerCase(), v]));
  const handle: DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    // dns2 encodes answers from plain records (its documented use); its type wants the class instances.
    const answer = (r: Omit<dns2.Packet.Resource, 'toBuffer'>) => response.answers.push(r as dns2.Packet.Resource);
    const [q] = request.questions;
    const name: string = q.name.toLowerCase().replace(/\.$/, '');
    const rec = records.get(name);
    if (!rec) {
      response.header.rcode = 3; // NXDOMAIN
      return void send(response);
    }
    const base = { name: q.name, class: Packet.CLASS.IN, ttl: 60 };
    const T = Packet.TYPE;
    if (q.type === T.A) for (const address of rec.A ?? []) answer({ ...base, type: T.A, address });
    if (q.type === T.AAAA) for (const address of rec.AAAA ?? []) answer({ ...base, type: T.AAAA, address });
    if (q.type === T.MX) for (const mx of rec.MX ?? []) answer({ ...base, type: T.MX, ...mx });
    if (q.type === T.NS) for (const ns of rec.NS ?? []) answer({ ...base, type: T.NS, ns });
    if (q.type === T.TXT) for (const txt of rec.TXT ?? []) answer({ ...base, type: T.TXT, data: chunk(txt) });
    void send(response);
  };
  // Pick a port from UDP, then bind TCP to the same number so truncated answers can be retried. The
  // TCP port can be taken meanwhile (it may be the local port of an outgoing connection, which uses
  // the same ephemeral range): then try another port rather than crash on an unhandled 'error'.
  let server: DnsServer | undefined;
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    const probe = dns2.createServer({ udp: true });
    await probe.listen({ udp: { port: 0, address: '127.0.0.1' } });
    port = probe.addresses().udp!.port;
    await probe.close();
    const candidate = dns2.createServer({ udp: true, tcp: true, handle });
    try {
      await new Promise<void>((resolve, reject) => {
        candidate.once('error', reject);
        candidate.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } }).then(() => {
          candidate.off('error', reject);
          resolve();
        }, reject);
      });
      server = candidate;
      break;
    } catch (err) {
      await Promise.race([candidate.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw err;
    }
  }
  return {
    address: `127.0.0.1:${port}`,
    port,
    set: (name, r) => void records.set(name.toLowerCase(), r),
    add: (name, r) => {
      const cur = records.get(name.toLowerCase()) ?? {};
      const merged: DnsRecords = { ...cur };
      for (const k of Object.keys(r) as Array<keyof DnsRecords>)
        Object.assign(merged, { [k]: [...(cur[k] ?? []), ...(r[k] ?? [])] });
      records.set(name.toLowerCase(), merged);
    },
    remove: (name) => void records.delete(name.toLowerCase()),
    close: async () => {
      await server.close();
    },
  };
}
