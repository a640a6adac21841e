// Package plan computes and applies the difference between the connectors an
// outbox spec wants and the connectors a Kafka Connect cluster runs.
//
// The three things to learn first:
//
//   - [Diff] compares desired [connectorconfig.Connector]s with the
//     [ActualConnector]s read by [Fetch] and returns a [Plan]: one [Change]
//     per connector, Terraform-shaped (create, update, delete, replace,
//     no-op), with per-key before/after values. The comparison is
//     normalised: values Connect returns masked ("[hidden]", "****"),
//     config-provider placeholders that Connect returned resolved,
//     "1000" vs "1000.0", "true" vs "TRUE", list spacing and the "name" key
//     Connect adds are not drift. Secrets are never kept in a rendered form:
//     sensitive keys render as "********" (redact.Mask).
//   - Dangerous changes are [Finding]s, each from a rule with an ID
//     ([Rules]): a renamed connector (offsets are keyed by name), topic.prefix,
//     slot.name, publication.name, snapshot.mode, database.server.id, routing
//     that moves topics, converter or payload-format changes, a table leaving
//     table.include.list, a connector.class change. Each says what happens to
//     offsets, slots and topics. They block [Apply] until allowed per rule
//     ([WithAllow]).
//   - [Apply] executes a plan with the connect client: it writes only what
//     changed (an identical PUT restarts the connector), uses initial_state on
//     create when the worker supports it, drives the declared state
//     (running, paused, stopped), then waits until each connector and every
//     task reach it, and returns a [Report] saying which connectors converged
//     and why the others did not.
//
// Renderers: [RenderText] (human, not a contract) and [RenderJSON] (a stable
// contract, golden-tested); [RenderReportText] and [RenderReportJSON] for the
// deploy report.
//
// Ownership: connectors written by outboxctl carry the config key [OwnerKey]
// (Kafka Connect keeps unknown keys in the stored config and connectors
// ignore them). Only connectors with the marker are ever deleted by a prune.
package plan
