// The metrics settings each component's config.ts reads from its own variables
// (FLOWHOOK_<COMPONENT>_METRICS_PORT, FLOWHOOK_METRICS_HOST, FLOWHOOK_METRICS_TOKEN).

export interface MetricsListenerSettings {
  host: string;
  /** 0: a free port (tests). */
  port: number;
}

/** A metrics listener, or undefined when its port is `off`. */
export function metricsListener(port: number | 'off', host: string): MetricsListenerSettings | undefined {
  return port === 'off' ? undefined : Object.freeze({ host, port });
}
