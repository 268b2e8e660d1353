/** API-CONTRACT "General": bodies over 1 MiB get 413 PAYLOAD_TOO_LARGE. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
