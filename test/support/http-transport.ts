// The `http transport` jest project (jest.config.js): the platform's parts call each other over
// HTTP in this process, as split layouts do, instead of in process.
process.env.GRAPHQL_TRANSPORT = 'http';
