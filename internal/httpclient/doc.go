// Package httpclient is the HTTP plumbing the Kafka Connect client
// (connectorconfig/connect) and the Schema Registry client
// (schemas/registry) share: authentication (Auth), TLS from files
// (TLSFiles), the transport (Transport), the classification of a request
// that got no answer (Expired), the JSON error body both APIs answer
// ({"error_code": N, "message": "…"}, ParseErrorBody) and the error types
// of an error answer (APIError, NewAPIError) and of a request without an
// answer (UnreachableError, TimeoutError), one
// implementation for both clients, each its own type (the type parameter
// S names the service and its sentinels). Answers are read with the bounded
// readers of internal/limitio.
//
// The options of both clients have one meaning each:
//
//   - WithCallTimeout bounds a whole call (every request and retry of it);
//   - WithRequestTimeout bounds each HTTP request (sending it and reading
//     its answer);
//   - WithTLS takes TLS files (TLSFiles), WithTLSConfig a ready *tls.Config,
//     for the default transport (a clone of http.DefaultTransport);
//   - WithHTTPClient sends through a copy of an *http.Client (its Timeout,
//     redirects, jar and transport), WithTransport sets the transport
//     (winning over the client's), WithTransportWrapper wraps whichever
//     transport is used (Sender; httpclienttest.TransportOptions runs one
//     table of them against both clients);
//   - WithBasicAuth and WithBearerToken (the token wins);
//   - WithMaxAnswerSize bounds the answer bodies read.
//
// It imports nothing from the module but internal/limitio and
// internal/redact (the import-graph tests keep it so).
package httpclient
