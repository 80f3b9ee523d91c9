/**
 * The baseline of bench/inbound-memory.ts: smtp-server with the inbound server's SIZE, accepting any
 * recipient and draining each message without keeping a byte. Prints `{"port": n}` once listening.
 */
import { SMTPServer } from 'smtp-server';

const server = new SMTPServer({
  logger: false,
  secure: false,
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  size: 15 * 1024 * 1024,
  disableReverseLookup: true,
  onData(stream, _session, cb) {
    stream.on('data', () => undefined);
    stream.on('end', () => cb());
  },
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ port: (server.server.address() as { port: number }).port })}\n`),
);
