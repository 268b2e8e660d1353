import { randomInt } from 'node:crypto';
import { parseIban } from '@gateway/kernel';

/**
 * A Libyan IBAN for an account of this bank: LY + check digits + bank code (the institution
 * code) + 3-digit branch + 15-digit account number (25 characters). The check digits are ISO
 * 7064 mod 97-10; kernel's parseIban (ibantools) re-validates the result, so a slip here cannot
 * produce an IBAN the rest of the platform refuses.
 */
export function composeLyIban(institutionCode: string, accountNumber: string, branch = '001'): string {
  const bban = `${institutionCode}${branch}${accountNumber}`;
  const rearranged = `${bban}LY00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  const check = 98n - (BigInt(rearranged) % 97n);
  const iban = `LY${String(check).padStart(2, '0')}${bban}`;
  if (!parseIban(iban)) throw new Error(`composed IBAN ${iban} does not validate`);
  return iban;
}

/** A fresh random account number (15 digits) inside this bank's IBAN space. */
export function newLyIban(institutionCode: string): string {
  let accountNumber = '';
  while (accountNumber.length < 15) accountNumber += String(randomInt(0, 10));
  return composeLyIban(institutionCode, accountNumber);
}

/** A 12-digit retrieval reference number, as the transfer rail stamps on a credit. */
export function newRrn(): string {
  let rrn = '';
  while (rrn.length < 12) rrn += String(randomInt(0, 10));
  return rrn;
}
