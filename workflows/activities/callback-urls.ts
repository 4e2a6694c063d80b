// The callback URLs one httpRequest attempt carries. The workflow hands the
// activity placeholders (flow/callback-placeholders.ts); the engine mints
// the real URLs per attempt (ResolveOutbound). A URL holds a token that
// resumes a waiting step, so it goes into the request and nowhere else: any
// message the attempt raises — it may quote the URL, a path or a host — and
// the whole answer it returns — a payment provider echoes the notify URL it
// was given in its body, a header, or the URL it redirected to — show the
// placeholder instead, before they reach Temporal, a log, a span or the flow.
import { ApplicationFailure } from '@temporalio/activity';
import { replacePlaceholders, type CallbackReference } from '../../flow/callback-placeholders.ts';
import { OutboundRefused } from '../outbound/outbound-errors.ts';

/** Shorter last path segments are not tokens (the engine's are 43 characters). */
const MIN_TOKEN_LENGTH = 16;

export class CallbackUrls {
  /** The steps whose URLs to ask the engine for, each once. */
  readonly steps: string[];
  readonly #references: readonly CallbackReference[];
  /** Placeholder → real URL. */
  readonly #urls = new Map<string, string>();
  /** What must not be shown → what is shown instead: each URL, then its token alone (a message may quote just a path). */
  readonly #secrets: [string, string][] = [];

  constructor(references: readonly CallbackReference[]) {
    this.#references = references;
    this.steps = [...new Set(references.map((reference) => reference.step))];
  }

  /** Takes the engine's answer (step → URL); a step it minted no URL for fails the attempt rather than send the placeholder. */
  learn(urls: Readonly<Record<string, string>>): void {
    for (const { step, placeholder } of this.#references) {
      const url = Object.hasOwn(urls, step) ? urls[step] : undefined;
      if (!url)
        throw new OutboundRefused(
          `the engine minted no callback URL for step "${step}" (is it older than this worker?)`,
          'CallbackUnavailable',
        );
      this.#urls.set(placeholder, url);
    }
    for (const [placeholder, url] of this.#urls) this.#secrets.push([url, placeholder]);
    for (const [placeholder, url] of this.#urls) {
      const token = url.slice(url.lastIndexOf('/') + 1);
      if (token.length >= MIN_TOKEN_LENGTH) this.#secrets.push([token, placeholder]);
    }
  }

  /** The text with every placeholder replaced by its URL: for the request only. */
  substitute(text: string): string {
    return this.#urls.size > 0 ? replacePlaceholders(text, this.#urls) : text;
  }

  /**
   * The text with every URL (and token) replaced by its placeholder again. The token alone is
   * replaced too, so the URL is also caught percent-encoded (`https%3A%2F%2F…%2F<token>`) or
   * JSON-escaped (`https:\/\/…\/<token>`): its characters are never escaped by either.
   */
  redact(text: string): string {
    if (this.#secrets.length === 0) return text;
    let shown = text;
    for (const [secret, placeholder] of this.#secrets) shown = shown.split(secret).join(placeholder);
    return shown;
  }

  /** The failure, its message redacted; type and retry behaviour kept. */
  redactFailure(failure: ApplicationFailure): ApplicationFailure {
    const message = this.redact(failure.message);
    if (message === failure.message) return failure;
    return ApplicationFailure.create({
      message,
      type: failure.type ?? undefined,
      nonRetryable: failure.nonRetryable ?? undefined,
      details: failure.details ?? undefined,
    });
  }
}
