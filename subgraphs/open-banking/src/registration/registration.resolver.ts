import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import type { SubgraphContext } from '@gateway/federation';
import { ClientRegistrationInput, ClientRegistrationUpdateInput } from './registration.input';
import type { RegistrationService } from './registration.service';
import { ClientRegistration, ClientRegistrationResult, toClientRegistration } from './registration.type';

const METADATA_ERRORS =
  'INVALID_CLIENT_METADATA (a field other than the redirect URIs; the detail names it), INVALID_REDIRECT_URI';
const TOKEN = 'The registration access token (Bearer rat_…) of this client; anything else is UNAUTHORIZED.';

/** POST /ob/register and /ob/register/{client_id} (RFC 7591, RFC 7592) map onto these. */
export function createRegistrationResolver(service: RegistrationService, publicBaseUrl: string) {
  const shown = (tpp: Parameters<typeof toClientRegistration>[0]) => toClientRegistration(tpp, publicBaseUrl);

  @Resolver()
  class RegistrationResolver {
    @Mutation(() => ClientRegistrationResult, {
      description:
        'Registers a fapi2 TPP (RFC 7591), public: the software statement signed by the operator’s directory is the credential. ' +
        'Returns the client id (tpp_…), the registration access token and the webhook secret, each secret once. ' +
        `Errors: REGISTRATION_NOT_ENABLED (no OB_DIRECTORY_JWKS), INVALID_SOFTWARE_STATEMENT, UNAPPROVED_SOFTWARE_STATEMENT, ${METADATA_ERRORS}.`,
    })
    async registerClient(
      @Arg('input', { description: 'The software statement and the client metadata.' }) input: ClientRegistrationInput,
      @Ctx() context: SubgraphContext,
    ): Promise<ClientRegistrationResult> {
      const registered = await service.register(context.em, input, auditedBy(context));
      context.logger.info(
        { tpp: registered.tpp.id, software_id: registered.tpp.softwareId },
        'tpp registered dynamically (fapi2)',
      );
      return {
        registration: shown(registered.tpp),
        registrationAccessToken: registered.registrationAccessToken,
        webhookSecret: registered.webhookSecret,
      };
    }

    @Query(() => ClientRegistration, { description: `A client's registration (RFC 7592 2.1). ${TOKEN}` })
    async clientRegistration(
      @Arg('clientId', () => ID, { description: 'The client id (tpp_…).' }) clientId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<ClientRegistration> {
      return shown(await service.read(context.em, context.principal, clientId));
    }

    @Mutation(() => ClientRegistration, {
      description: `Replaces a client's metadata (RFC 7592 2.2): keys, redirect URIs, webhook URL. ${TOKEN} Errors: UNAUTHORIZED, ${METADATA_ERRORS}.`,
    })
    async updateClientRegistration(
      @Arg('clientId', () => ID, { description: 'The client id (tpp_…).' }) clientId: string,
      @Arg('input', { description: 'The whole metadata; an omitted webhookUrl is removed.' })
      input: ClientRegistrationUpdateInput,
      @Ctx() context: SubgraphContext,
    ): Promise<ClientRegistration> {
      const tpp = await service.update(context.em, context.principal, clientId, input, auditedBy(context));
      context.logger.info({ tpp: clientId }, 'tpp registration updated');
      return shown(tpp);
    }

    @Mutation(() => Boolean, {
      description:
        `Deletes a client (RFC 7592 2.3): the TPP is DISABLED for good and every token it holds or its consents hold is revoked at once. ${TOKEN} ` +
        'Answers true.',
    })
    async deleteClientRegistration(
      @Arg('clientId', () => ID, { description: 'The client id (tpp_…).' }) clientId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<boolean> {
      await service.remove(context.em, context.principal, clientId, auditedBy(context));
      context.logger.info({ tpp: clientId }, 'tpp registration deleted: disabled');
      return true;
    }
  }
  return RegistrationResolver;
}
