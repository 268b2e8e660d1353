// First: tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) must be in place before any server or client exists.
import '@gateway/tracing/register';
import { runStandalone } from '@gateway/federation';
import { paymentsEnv } from './config';
import { start } from './service';

void runStandalone('payments', 4003, start, paymentsEnv);
