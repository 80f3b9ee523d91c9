import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

/** One `SendEmail` request the stand-in received. */
export interface SesRequest {
  /** The raw MIME of `Content.Raw.Data`, decoded. */
  raw: Buffer;
  to: string[];
  configurationSet?: string;
  /** The SigV4 `Authorization` header recomputed with the known secret matched the one sent. */
  signatureValid: boolean;
  /** Credential scope of the signature: `<key id>/<date>/<region>/<service>/aws4_request`. */
  scope: string;
  /** The MessageId answered, when the send was accepted. */
  messageId?: string;
}

/** How the stand-in answers one request: accept, or an SES error (HTTP status and `x-amzn-ErrorType`). */
export type SesAnswer = 'accept' | { status: number; type: string; message: string };

/**
 * A local HTTP server standing in for the Amazon SES API v2 endpoint (`POST /v2/email/outbound-emails`,
 * REST-JSON): it checks the SigV4 signature by recomputing it with the known credentials
 * (`@smithy/signature-v4`), records the request and answers as `decide` says (default: accept).
 * A request whose signature does not match is answered 403 `SignatureDoesNotMatch`.
 */
export async function startSesServer(opts: {
  accessKeyId: string;
  secretAccessKey: string;
  decide?: (req: SesRequest, attempt: number) => SesAnswer;
}) {
  const requests: SesRequest[] = [];
  const attempts = new Map<string, number>();
  const server = createServer(
    (req, res) =>
      void handle(req, res).catch((err) => {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: String(err) }));
      }),
  );
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const auth = String(req.headers.authorization ?? '');
    const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(auth);
    let signatureValid = false;
    const scope = m?.[1] ?? '';
    if (m) {
      const [keyId, , region, service] = scope.split('/');
      const signed = m[2].split(';');
      const headers: Record<string, string> = {};
      for (const h of signed) headers[h] = String(req.headers[h] ?? '');
      const u = new URL(req.url ?? '/', 'http://stand-in');
      const amzDate = String(req.headers['x-amz-date']);
      const signingDate = new Date(
        `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
      );
      const signer = new SignatureV4({
        credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
        region,
        service,
        sha256: Sha256,
      });
      const again = await signer.sign(
        {
          method: req.method ?? 'POST',
          protocol: 'http:',
          hostname: headers.host?.split(':')[0] ?? '127.0.0.1',
          path: u.pathname,
          query: Object.fromEntries(u.searchParams),
          headers,
          body,
        },
        { signingDate },
      );
      signatureValid = keyId === opts.accessKeyId && String(again.headers.authorization) === auth;
    }
    if (!signatureValid) {
      return res
        .writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'SignatureDoesNotMatch' })
        .end(
          JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided.' }),
        );
    }
    if (req.method !== 'POST' || req.url !== '/v2/email/outbound-emails') {
      return res
        .writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'NotFoundException' })
        .end('{"message":"no such path"}');
    }
    const input = JSON.parse(body) as {
      Content?: { Raw?: { Data?: string } };
      Destination?: { ToAddresses?: string[] };
      ConfigurationSetName?: string;
    };
    const r: SesRequest = {
      raw: Buffer.from(input.Content?.Raw?.Data ?? '', 'base64'),
      to: input.Destination?.ToAddresses ?? [],
      configurationSet: input.ConfigurationSetName,
      signatureValid,
      scope,
    };
    requests.push(r);
    const key = r.to.join(',');
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    const answer = opts.decide?.(r, attempt) ?? 'accept';
    if (answer === 'accept') {
      r.messageId = `0100019${randomUUID().replace(/-/g, '')}-000000`;
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ MessageId: r.messageId }));
    }
    res
      .writeHead(answer.status, { 'content-type': 'application/json', 'x-amzn-errortype': answer.type })
      .end(JSON.stringify({ message: answer.message }));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Requests whose recipients include `rcpt`. */
    to: (rcpt: string) => requests.filter((q) => q.to.includes(rcpt)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SesServer = Awaited<ReturnType<typeof startSesServer>>;
