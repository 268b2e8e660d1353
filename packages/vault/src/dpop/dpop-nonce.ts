import { createHmac } from 'node:crypto';
import { safeEqual } from '@gateway/kernel';

/** How long one nonce is current; a nonce is accepted in its own window and the next (5–10 min). */
export const DPOP_NONCE_WINDOW_SECONDS = 300;

/**
 * Server nonces for DPoP proofs (RFC 9449 8, 9): stateless, so any instance of the router or of
 * open-banking makes and accepts the same ones without sharing a store. A nonce names its time
 * window and carries an HMAC of it under a key derived from the platform secret: a client cannot
 * make one, and one stops being accepted a window after the next one is handed out.
 *
 * `required`: every proof must carry a current nonce (production, API-CONTRACT "Open Banking at
 * FAPI 2.0"); otherwise nonces are handed out and checked only when a proof carries one.
 */
export class DpopNonces {
  private readonly key: Buffer;

  constructor(
    platformSecret: string,
    readonly required: boolean,
    private readonly windowSeconds = DPOP_NONCE_WINDOW_SECONDS,
  ) {
    // A key of its own, so a nonce's MAC is never a MAC the platform makes for anything else.
    this.key = createHmac('sha256', platformSecret).update('dpop-nonce').digest();
  }

  /** The nonce to hand out now (the DPoP-Nonce header). */
  current(now = new Date()): string {
    return this.nonceOf(this.windowOf(now));
  }

  /** Whether `nonce` is one this server handed out in the current window or the one before. */
  accepts(nonce: unknown, now = new Date()): boolean {
    if (typeof nonce !== 'string' || nonce.length > 64) return false;
    const window = this.windowOf(now);
    return safeEqual(nonce, this.nonceOf(window)) || safeEqual(nonce, this.nonceOf(window - 1));
  }

  private windowOf(now: Date): number {
    return Math.floor(now.getTime() / 1000 / this.windowSeconds);
  }

  private nonceOf(window: number): string {
    const mac = createHmac('sha256', this.key).update(String(window)).digest('base64url').slice(0, 22);
    return `${window.toString(36)}.${mac}`;
  }
}
