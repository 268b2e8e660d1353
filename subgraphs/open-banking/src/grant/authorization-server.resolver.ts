import { Query, Resolver } from 'type-graphql';
import { authorizationServerMetadata, AuthorizationServerMetadata } from './authorization-server';

/** Public discovery: built once from the configured public base URL. */
export function createAuthorizationServerResolver(publicBaseUrl: string) {
  const metadata = authorizationServerMetadata(publicBaseUrl);

  @Resolver()
  class AuthorizationServerResolver {
    @Query(() => AuthorizationServerMetadata, {
      description: 'OAuth 2.0 authorization server metadata (RFC 8414). Public.',
    })
    authorizationServerMetadata(): AuthorizationServerMetadata {
      return { ...metadata, scopesSupported: [...metadata.scopesSupported] };
    }
  }
  return AuthorizationServerResolver;
}
