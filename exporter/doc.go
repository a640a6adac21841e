// Package exporter is a Prometheus exporter for the outboxes of a spec:
// a prometheus.Collector that, on each scrape, reads the replication slot
// or binlog position, the outbox table, the connector's status on Kafka
// Connect and the lag of consumer groups. Learn Collector, Config and
// Target first; cmd's `outboxctl exporter` serves a Collector on /metrics.
//
// Every fact is read through the provisioning functions doctor uses
// (provisioning.SlotFacts, InspectTableStats, ReadBinlogFacts, ConsumerLag and
// the connect client's Status), so the two never disagree.
//
// A scrape is bounded by Config.Timeout and, through Collector.Handler, by
// Prometheus's scrape timeout (the X-Prometheus-Scrape-Timeout-Seconds
// header) less a margin, so the scrape is never lost to a slow target. Each
// part of it (one database, one connector, Kafka) is a target: a target
// that fails or does not answer in time is outbox_up{target=…}=0, one more
// outbox_scrape_errors_total and outbox_target_error{reason=…}=1, and the
// scrape itself still succeeds with what the other targets answered. A
// target's change of state (failing and why, recovered) is logged once to
// Config.Logger. An outbox the caller could not resolve (Target.Err) is a
// database target down with reason config, or missing when the caller has
// no DSN for it (ErrNoDSN); the others are exported.
//
// Metrics (labels in braces; every series of an outbox has outbox=<name>):
//
//	outbox_up{target,outbox}                          1 when the target answered this scrape, else 0
//	outbox_scrape_duration_seconds{target,outbox}     time the target took in this scrape
//	outbox_scrape_errors_total{target,outbox}         scrapes of the target that failed, since start
//	outbox_target_error{target,outbox,reason}         1 for the reason the target failed in this scrape,
//	                                                  0 for the others (timeout, unreachable, auth,
//	                                                  missing, config, error); all 0 when it is up
//	outbox_pg_slot_present{slot}                      1 when the connector's replication slot exists
//	outbox_pg_slot_retained_wal_bytes{slot}           current WAL LSN − the slot's restart_lsn
//	outbox_pg_slot_confirmed_flush_lag_bytes{slot}    current WAL LSN − the slot's confirmed_flush_lsn
//	outbox_pg_slot_active{slot}                       1 when a walsender streams from the slot
//	outbox_pg_slot_wal_status{slot,wal_status}        1 for the slot's wal_status (reserved, extended,
//	                                                  unreserved, lost), 0 for the others
//	outbox_pg_slot_confirmed_flush_stalled_seconds{slot}
//	                                                  seconds since the slot's confirmed_flush_lsn last
//	                                                  advanced while WAL waits past it; 0 while it is
//	                                                  caught up, counted from the exporter's first
//	                                                  scrape of the slot (Config.Now is the clock)
//	outbox_pg_slot_safe_wal_size_bytes{slot}          pg_replication_slots.safe_wal_size: WAL that can
//	                                                  still be written before the slot may be lost;
//	                                                  absent when max_slot_wal_keep_size is -1
//	outbox_binlog_lag_bytes{connector}                binlog the server wrote past the connector's
//	                                                  committed offset (file, pos)
//	outbox_binlog_retention_left_seconds{connector}   binlog retention − age of the connector's offset
//	                                                  (ts_sec): time left before the binlog it must
//	                                                  resume from may be purged
//	outbox_binlog_offset_purged{connector}            1 when the offset's binlog file is gone
//	outbox_table_rows_estimate{table}                 catalog estimate of the table's live rows
//	outbox_table_oldest_row_age_seconds{table}        age of the oldest kept row (timestamp column or
//	                                                  UUIDv7 id) of a connector outbox that keeps rows
//	                                                  after publishing; 0 when the table is empty
//	outbox_table_oldest_unpublished_row_age_seconds{table}
//	                                                  the same for a relay outbox, whose rows are all
//	                                                  unpublished (the relay deletes them on the ack)
//	outbox_retention_seconds{outbox}                  the age the oldest kept row may reach: the
//	                                                  spec's retention, else Config.MaxOldestRowAge
//	                                                  (doctor's --max-oldest-row-age), for outboxes
//	                                                  that keep rows (provisioning.OldestRowLimit)
//	outbox_connector_state{connector,state}           1 for the connector's current state, 0 for the
//	                                                  others (UNASSIGNED, RUNNING, PAUSED, STOPPED,
//	                                                  FAILED, RESTARTING, NOT_FOUND)
//	outbox_connector_task_state{connector,task,state} the same per task
//	outbox_connector_tasks{connector}                 the number of tasks
//	outbox_consumer_group_lag{group,topic,partition,outbox}
//	                                                  log end offset − the group's committed offset
//	outbox_consumer_group_lag_seconds{group,topic,partition,outbox}
//	                                                  now − the timestamp of the record at the committed
//	                                                  offset (the oldest not consumed) when the group
//	                                                  is behind, else 0 (Config.Records; kafka-lag-
//	                                                  exporter's kafka_consumergroup_group_lag_seconds)
//	outbox_consumer_group_max_lag{group,outbox}       the largest lag over the group's partitions;
//	                                                  NaN when the group has no committed offset
//	outbox_consumer_group_max_lag_seconds{group,outbox}
//	                                                  the same in seconds (Config.Records)
//	outbox_canary_success{outbox}                     1 when the last canary passed every stage, else 0
//	outbox_canary_stage_seconds{outbox,stage}         latency of each stage the last canary checked
//	outbox_canary_last_run_timestamp_seconds{outbox}  when the last canary ended
//	outbox_canary_runs_total{outbox,result}           canaries run, by result (ok, failed, error)
//
// The connector series are absent for outboxes the polling relay publishes
// (the relay serves its own metrics), the binlog series for PostgreSQL and
// the slot series for MySQL/MariaDB. Consumer groups are the ones
// Config.Groups names, with the outbox label Config.GroupOutbox gives
// ("" for the others); each outbox label is one target "kafka". A group
// without a committed offset (one that does not exist, a misspelt name)
// has its max series from the first scrape, NaN, and its target is down
// with reason missing; the other groups of the target are still exported.
//
// The canary prober (Config.Probes, Config.ProbeInterval, RunProbes) runs
// each outbox's Probe (verify's canary, verify.Run, through
// exporterkafka.Probe) on a schedule, outside the scrapes, and the scrapes
// export its last result: the outbox_canary_* series exist once a canary
// has run.
//
// The package does not serve HTTP, read flags or resolve secrets: the
// caller opens the databases (as the connector's user, from the spec's
// references) and the clients.
//
// # cgo
//
// The package builds with CGO_ENABLED=0: it reaches Kafka only through
// interfaces with their own types (provisioning.LagAdmin, RecordTimes,
// Probe). Their implementations over confluent-kafka-go, which binds
// librdkafka, live in provisioning/kafkaadmin (kafkaadmin.New of a
// *kafka.AdminClient) and exporter/exporterkafka (NewRecordTimes, Probe).
package exporter
