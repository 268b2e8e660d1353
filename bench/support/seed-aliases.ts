import { composeIBAN } from 'ibantools';
import { request, type Agent } from 'undici';
import type { LaunchedPlatform } from './launcher';

/**
 * A bench bank and `count` ACTIVE aliases at it, registered through the public REST API; the
 * aliases' handles. The bank's core is never called (nothing here moves money).
 */
export async function seedAliases(
  platform: LaunchedPlatform,
  agent: Agent,
  count: number,
  code = '781',
): Promise<string[]> {
  const post = async (path: string, headers: Record<string, string>, body: unknown) => {
    const response = await request(`${platform.restUrl}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: agent,
    });
    const json = (await response.body.json()) as any;
    if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  const bank = await post(
    '/banks',
    { 'x-service-admin-key': platform.adminKey },
    {
      bank_handle: `peersbank${code}`,
      display_name: 'Bench Bank',
      country: 'LY',
      core_base_url: 'http://127.0.0.1:9',
      settlement_account_iban: composeIBAN({ countryCode: 'LY', bban: `${code}001000000000000001` }),
      contact_email: 'ops@bench.example',
      institution_code: code,
    },
  );
  const aliases: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const alias = `peers${code}x${i}`;
    await post(
      '/v1/identity/claim',
      { 'x-service-bank-key': bank.bank_key },
      {
        npt_handle: alias,
        iban: composeIBAN({ countryCode: 'LY', bban: `${code}001${String(1000 + i).padStart(15, '0')}` }),
        customer_display_name: 'Bench Customer',
        bank_customer_ref: `c${i}`,
      },
    );
    aliases.push(alias);
  }
  return aliases;
}
