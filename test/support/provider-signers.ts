// Requests signed the way each provider signs them — with the providers' own
// libraries where they publish one (standardwebhooks, stripe,
// @octokit/webhooks-methods), by hand per their documentation where they do
// not (Slack, Shopify, Standard Webhooks v1a, the generic HMAC scheme). Each
// signer takes the exact body bytes and returns the headers to send.
import {
  createHmac,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign as signEd25519,
  type KeyObject,
} from 'node:crypto';
import { sign as signGithub } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';

export interface SignOptions {
  /** Unix seconds of the signature; default now. */
  timestamp?: number;
  /** The provider's event/delivery id where the scheme sends it in a header. */
  id?: string;
}

export type Signer = (body: string, secret: string, options?: SignOptions) => Promise<Record<string, string>>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A `whsec_` secret as Standard Webhooks senders (Svix and others) show it. */
export const standardWebhooksSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** Standard Webhooks v1 (HMAC-SHA256) with the `standardwebhooks` library's own signer. */
export const signStandardV1: Signer = async (body, secret, options = {}) => {
  const id = options.id ?? `msg_${randomUUID()}`;
  const timestamp = options.timestamp ?? nowSeconds();
  const signature = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
};

/** An Ed25519 sender key pair: the `whpk_` public key is what flowhook stores. */
export function standardWebhooksKeyPair(): { privateKey: KeyObject; publicSecret: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { privateKey, publicSecret: `whpk_${raw.toString('base64')}` };
}

/**
 * Standard Webhooks v1a by hand (the npm library signs v1 only): Ed25519 over
 * `{id}.{timestamp}.{body}`, base64, as `v1a,<signature>` (spec "Asymmetric signatures").
 */
export function signStandardV1a(privateKey: KeyObject): Signer {
  return async (body, _secret, options = {}) => {
    const id = options.id ?? `msg_${randomUUID()}`;
    const timestamp = options.timestamp ?? nowSeconds();
    const signature = signEd25519(null, Buffer.from(`${id}.${timestamp}.${body}`), privateKey).toString('base64');
    return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1a,${signature}` };
  };
}

export const stripeSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

/** Stripe-Signature from the `stripe` package's test helper (the event id travels in the body). */
export const signStripe: Signer = async (body, secret, options = {}) => ({
  'stripe-signature': Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret,
    timestamp: options.timestamp ?? nowSeconds(),
  }),
});

/** X-Hub-Signature-256 from `@octokit/webhooks-methods`. */
export const signGithubRequest: Signer = async (body, secret, options = {}) => ({
  'x-hub-signature-256': await signGithub(secret, body),
  'x-github-delivery': options.id ?? randomUUID(),
  'x-github-event': 'push',
});

/** Slack's v0 signature per api.slack.com/authentication/verifying-requests-from-slack. */
export const signSlack: Signer = async (body, secret, options = {}) => {
  const timestamp = options.timestamp ?? nowSeconds();
  const digest = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': `v0=${digest}` };
};

/** Shopify's X-Shopify-Hmac-Sha256 per shopify.dev (base64 HMAC-SHA256 of the raw body). */
export const signShopify: Signer = async (body, secret, options = {}) => ({
  'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body).digest('base64'),
  'x-shopify-webhook-id': options.id ?? randomUUID(),
  'x-shopify-topic': 'orders/create',
});

/** The generic scheme as the tests configure it: `x-signature: sha256=<hex HMAC of "{timestamp}.{body}">`. */
export const GENERIC_HMAC = {
  header: 'x-signature',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: 'sha256=',
  signedContent: '{timestamp}.{body}',
  timestampHeader: 'x-timestamp',
  eventIdHeader: 'x-event-id',
};

export const signGenericHmac: Signer = async (body, secret, options = {}) =>
  genericHmacHeaders(Buffer.from(body), secret, options);

/** The same over bytes that need not be text (binary bodies). */
export function genericHmacHeaders(body: Buffer, secret: string, options: SignOptions = {}): Record<string, string> {
  const timestamp = options.timestamp ?? nowSeconds();
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return {
    'x-signature': `sha256=${digest}`,
    'x-timestamp': String(timestamp),
    'x-event-id': options.id ?? randomUUID(),
  };
}

/** A plain random secret for the schemes whose secret is any text (GitHub, Slack, Shopify, hmac). */
export const textSecret = () => randomBytes(24).toString('hex');
