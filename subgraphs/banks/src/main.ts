// First: tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) must be in place before any server or client exists.
import '@gateway/tracing/register';
import { runStandalone } from '@gateway/federation';
import { banksEnv } from './config';
import { start } from './service';

void runStandalone('banks', 4001, start, banksEnv);
