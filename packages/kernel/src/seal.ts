import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM) for the few secrets the platform must present again
 * later — a bank's internal key, sent on every core call — which therefore cannot be kept as a
 * hash only. The key is derived from the platform secret.
 */
/** The key of the last platform secret asked for (one per process). */
let derived: { secret?: string; key: Buffer } = { key: Buffer.alloc(0) };
const keyOf = (platformSecret: string): Buffer => {
  // One platform secret per process: derived once, not on every webhook intake and attempt.
  if (platformSecret !== derived.secret)
    derived = { secret: platformSecret, key: createHash('sha256').update(`seal:${platformSecret}`).digest() };
  return derived.key;
};

export function sealSecret(plaintext: string, platformSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(platformSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
}

export function openSealedSecret(sealed: string, platformSecret: string): string {
  const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !ciphertext) throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(platformSecret), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}
