/**
 * @apollo/gateway (2.x) starts, in its constructor, an OpenTelemetry meter that probes the cloud
 * metadata addresses (169.254.169.254 and the like: AWS, GCP, Azure, Alibaba) and exports usage
 * data to Apollo's public endpoint, unless APOLLO_TELEMETRY_DISABLED is set. A payment gateway
 * calls no one it was not told to (the egress policy refuses those very addresses), so it is
 * switched off before any ApolloGateway is made: the library reads only this variable.
 */
export function withoutApolloTelemetry(): void {
  process.env.APOLLO_TELEMETRY_DISABLED = 'true';
}
