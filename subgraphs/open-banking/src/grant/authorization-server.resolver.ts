import { Query, Resolver } from 'type-graphql';
import { authorizationServerMetadata, AuthorizationServerMetadata } from './authorization-server';

/** Public discovery: built once from the configured public base URL and whether registration is on. */
export function createAuthorizationServerResolver(publicBaseUrl: string, registrationEnabled: boolean) {
  const metadata = authorizationServerMetadata(publicBaseUrl, registrationEnabled);

  @Resolver()
  class AuthorizationServerResolver {
    @Query(() => AuthorizationServerMetadata, {
      description: 'OAuth 2.0 authorization server metadata (RFC 8414). Public.',
    })
    authorizationServerMetadata(): AuthorizationServerMetadata {
      return structuredClone(metadata);
    }
  }
  return AuthorizationServerResolver;
}
