import net from 'node:net';

/**
 * A bare SMTP client over one TCP connection, for tests of what a server does with a client that
 * misbehaves (holds connections, stays idle, guesses passwords): nodemailer hides those moments.
 */
export interface RawSmtp {
  /** The next complete reply (multi-line replies joined), or null when the server closed first. */
  reply(): Promise<string | null>;
  /** Sends `line` with CRLF and answers the reply to it. */
  command(line: string): Promise<string | null>;
  write(data: string | Buffer): void;
  /** Resolves once the server closed the connection. */
  closed: Promise<void>;
  end(): void;
}

/** Connects to `127.0.0.1:port`. */
export function rawSmtp(port: number): RawSmtp {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let waiting: ((line: string | null) => void) | null = null;
  const replies: Array<string | null> = [];
  let current: string[] = [];
  const push = (r: string | null) => (waiting ? (waiting(r), (waiting = null)) : replies.push(r));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let i: number;
    while ((i = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      current.push(line);
      if (line[3] !== '-') {
        push(current.join('\n'));
        current = [];
      }
    }
  });
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      push(null);
      resolve();
    }),
  );
  socket.on('error', () => undefined);
  const reply = () =>
    replies.length ? Promise.resolve(replies.shift()!) : new Promise<string | null>((r) => (waiting = r));
  return {
    reply,
    command: (line) => {
      socket.write(`${line}\r\n`);
      return reply();
    },
    write: (data) => socket.write(data),
    closed,
    end: () => socket.destroy(),
  };
}
