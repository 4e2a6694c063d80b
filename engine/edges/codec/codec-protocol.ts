// Temporal's remote codec protocol, as the Web UI and the CLI speak it:
// `POST …/decode` and `POST …/encode` with `{"payloads": [Payload…]}` in the
// protobuf JSON mapping (every bytes field — `data` and each `metadata` value —
// is base64), answered in the same shape. Pure: parsing and serialising only.
import type { Payload } from '@temporalio/common';

/** A payload as it arrived, kept so that what the codec leaves alone goes back byte for byte (unknown fields included). */
export interface WirePayload {
  payload: Payload;
  raw: Record<string, unknown>;
}

export class CodecRequestError extends Error {}

/** The most payloads one request may carry: the UI sends one event's (a handful); the CLI one history page's. */
export const MAX_PAYLOADS = 10_000;

// Standard or URL-safe alphabet, padding optional: what proto3 JSON parsers accept.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export function parseCodecRequest(text: string): WirePayload[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CodecRequestError(
      'the body must be JSON: {"payloads": [{"metadata": {"encoding": "<base64>"}, "data": "<base64>"}]}',
    );
  }
  if (!isObject(body)) throw new CodecRequestError('the body must be an object with a "payloads" array');
  // proto3 JSON leaves an empty repeated field out: the CLI sends `{}` for no payloads.
  const payloads = body.payloads ?? [];
  if (!Array.isArray(payloads)) throw new CodecRequestError('the body must be an object with a "payloads" array');
  if (payloads.length > MAX_PAYLOADS) throw new CodecRequestError(`at most ${MAX_PAYLOADS} payloads per request`);
  return payloads.map((item, index) => ({ payload: toPayload(item, index), raw: item as Record<string, unknown> }));
}

function toPayload(item: unknown, index: number): Payload {
  if (!isObject(item)) throw new CodecRequestError(`payloads[${index}] must be an object`);
  const payload: Payload = {};
  if (item.metadata !== undefined && item.metadata !== null) {
    if (!isObject(item.metadata))
      throw new CodecRequestError(`payloads[${index}].metadata must be an object of base64 strings`);
    payload.metadata = {};
    for (const [key, value] of Object.entries(item.metadata))
      payload.metadata[key] = bytes(value, `payloads[${index}].metadata.${key}`);
  }
  if (item.data !== undefined && item.data !== null) payload.data = bytes(item.data, `payloads[${index}].data`);
  return payload;
}

function bytes(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value)) throw new CodecRequestError(`${where} must be a base64 string`);
  return new Uint8Array(Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64'));
}

/** The answer: payloads the codec changed in their new form, the others exactly as they came. */
export function serializeCodecResponse(
  results: { payload: Payload; changed: boolean; raw: Record<string, unknown> }[],
): string {
  return JSON.stringify({ payloads: results.map((result) => (result.changed ? toWire(result.payload) : result.raw)) });
}

export function toWire(payload: Payload): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (payload.metadata) {
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(payload.metadata))
      if (value) metadata[key] = Buffer.from(value).toString('base64');
    wire.metadata = metadata;
  }
  if (payload.data && payload.data.length > 0) wire.data = Buffer.from(payload.data).toString('base64');
  return wire;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
