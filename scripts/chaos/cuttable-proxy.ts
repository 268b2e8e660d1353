import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between the platform processes and RabbitMQ that the chaos run controls: cut() drops
 * every open connection and refuses new ones until restore(). Only this run's connections are cut.
 */
export class CuttableProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private open = true;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.open) return client.destroy();
      const upstream = connect(this.targetPort, this.targetHost);
      this.sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** Drops every connection through the proxy and refuses new ones; returns how many were dropped. */
  cut(): number {
    this.open = false;
    const dropped = this.sockets.size / 2;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return dropped;
  }

  restore(): void {
    this.open = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
