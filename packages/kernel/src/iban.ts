import { electronicFormatIBAN, extractIBAN, isValidIBAN } from 'ibantools';
import { GatewayError } from './errors';

export interface IbanInfo {
  /** Electronic format: upper case, no spaces. */
  iban: string;
  countryCode: string;
  /** The bank's institution code: the first three digits of the BBAN (LY: bank code). */
  institutionCode: string;
}

/** Parses and checks an IBAN (country format and mod-97); null when it is not valid. */
export function parseIban(raw: string): IbanInfo | null {
  const iban = electronicFormatIBAN(raw);
  if (!iban || !isValidIBAN(iban)) return null;
  const parts = extractIBAN(iban);
  if (!parts.valid || !parts.countryCode || !parts.bban) return null;
  return { iban, countryCode: parts.countryCode, institutionCode: parts.bankIdentifier ?? parts.bban.slice(0, 3) };
}

export function requireIban(raw: unknown, field = 'iban'): IbanInfo {
  const info = typeof raw === 'string' ? parseIban(raw) : null;
  if (!info) throw new GatewayError('VALIDATION_ERROR', `${field}: not a valid IBAN (format or checksum)`);
  return info;
}
