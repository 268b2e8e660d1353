import { ApolloGateway } from '@apollo/gateway';
import * as apolloTelemetry from '@apollo/gateway/dist/utilities/opentelemetry';
import { withoutApolloTelemetry } from './apollo-telemetry';

describe("Apollo gateway's own telemetry", () => {
  it('is never started: no cloud metadata probe, no export to Apollo', () => {
    const started = jest.spyOn(apolloTelemetry, 'createDataCollectionExporter');
    try {
      withoutApolloTelemetry();
      new ApolloGateway({ supergraphSdl: 'type Query { a: Int }' });
      expect(started).not.toHaveBeenCalled();
    } finally {
      started.mockRestore();
    }
  });
});
