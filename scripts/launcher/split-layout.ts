import { freePort, ServiceProcess } from './service-process';

export const SUBGRAPHS = ['banks', 'identity', 'payments', 'open-banking'] as const;
export type SubgraphName = (typeof SUBGRAPHS)[number];
export type ServiceName = SubgraphName | 'router' | 'rest-compat';
/** In start order: subgraphs, the routers that call them, rest-compat in front. */
export const SERVICES: readonly ServiceName[] = [...SUBGRAPHS, 'router', 'rest-compat'];

const SUBGRAPH_URL_VARIABLE: Record<SubgraphName, string> = {
  banks: 'BANKS_URL',
  identity: 'IDENTITY_URL',
  payments: 'PAYMENTS_URL',
  'open-banking': 'OPEN_BANKING_URL',
};

/** Base addresses (http://host:port) through which the services reach each other. */
export interface Reach {
  subgraphs: Record<SubgraphName, string>;
  router: string;
}

export interface LayoutOptions {
  /** Instances of every service (1: the split layout; more: behind a balancer). */
  replicas?: number;
  /** Every process's environment: DATABASE_URL, PLATFORM_SECRET, ADMIN_KEY, AMQP_URL, LOG_LEVEL, ... */
  common: Record<string, string>;
  /** A service's own variables (payments' timings, the router's RATE_LIMITS). */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * Where the services reach each other, given every instance's port: a balancer's addresses.
   * Default: the first instance of each directly (one replica).
   */
  reach?: (ports: Record<ServiceName, number[]>) => Reach | Promise<Reach>;
}

/**
 * The platform as a scaled-out deployment runs it: every service in its own OS processes
 * (`npm run start:<service>`), `replicas` of each, on fixed ports, sharing PostgreSQL (and
 * RabbitMQ when AMQP_URL is in `common`). The benchmarks, the chaos run and the cluster build on it.
 */
export class SplitLayout {
  private constructor(
    readonly instances: ServiceProcess[],
    readonly ports: Record<ServiceName, number[]>,
    readonly reach: Reach,
  ) {}

  static async plan(options: LayoutOptions): Promise<SplitLayout> {
    const replicas = options.replicas ?? 1;
    const ports = {} as Record<ServiceName, number[]>;
    for (const service of SERVICES)
      ports[service] = await Promise.all(Array.from({ length: replicas }, () => freePort()));
    const reach = options.reach
      ? await options.reach(ports)
      : {
          subgraphs: Object.fromEntries(
            SUBGRAPHS.map((name) => [name, `http://127.0.0.1:${ports[name][0]}`]),
          ) as Record<SubgraphName, string>,
          router: `http://127.0.0.1:${ports.router[0]}`,
        };
    const routerGraphql = `${reach.router}/graphql`;
    const ownEnv = (service: ServiceName, port: number): Record<string, string> => {
      if (service === 'router')
        return {
          ROUTER_PORT: String(port),
          ...Object.fromEntries(
            SUBGRAPHS.map((name) => [SUBGRAPH_URL_VARIABLE[name], `${reach.subgraphs[name]}/graphql`]),
          ),
        };
      if (service === 'rest-compat') return { REST_PORT: String(port), ROUTER_URL: routerGraphql };
      return { PORT: String(port), ROUTER_URL: routerGraphql };
    };
    const instances = SERVICES.flatMap((service) =>
      ports[service].map(
        (port, index) =>
          new ServiceProcess(
            {
              name: replicas === 1 ? service : `${service}-${index + 1}`,
              service,
              entry:
                service === 'router'
                  ? 'router/src/main.ts'
                  : service === 'rest-compat'
                    ? 'rest-compat/src/main.ts'
                    : `subgraphs/${service}/src/main.ts`,
              env: { ...ownEnv(service, port), ...options.env?.[service] },
              port,
              readyUrl: `http://127.0.0.1:${port}/readyz`,
            },
            options.common,
          ),
      ),
    );
    return new SplitLayout(instances, ports, reach);
  }

  of(service: ServiceName): ServiceProcess[] {
    return this.instances.filter((instance) => instance.spec.service === service);
  }

  /**
   * The first instance of each subgraph one at a time (each migrates its schema, and they share
   * the vault's), then the other subgraph instances, the routers and rest-compat, each group at once.
   */
  async start(): Promise<void> {
    for (const name of SUBGRAPHS) await this.of(name)[0]!.start();
    await Promise.all(SUBGRAPHS.flatMap((name) => this.of(name).slice(1)).map((instance) => instance.start()));
    await Promise.all(this.of('router').map((instance) => instance.start()));
    await Promise.all(this.of('rest-compat').map((instance) => instance.start()));
  }

  /** SIGTERM to every instance at once (each drains, stops and exits); SIGKILL after `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    await Promise.all(this.instances.map((instance) => instance.terminate(graceMs)));
  }
}
