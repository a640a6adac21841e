package main

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/kafkaclient"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, c config)
		wantErr string
	}{
		{
			name: "defaults: the native stack, PLAINTEXT",
			check: func(t *testing.T, c config) {
				if c.Kafka.BootstrapServers != "127.0.0.1:19092" || c.Kafka.Security.Protocol != "" || c.GroupID != "service-billing" || c.Shutdown != 20*time.Second {
					t.Errorf("defaults = %+v", c)
				}
			},
		},
		{
			name: "SASL_SSL from flags, the password from the environment only",
			args: []string{"-kafka", "b:9094", "-kafka-security-protocol", "SASL_SSL", "-kafka-sasl-mechanism", "SCRAM-SHA-512",
				"-kafka-sasl-username", "svc", "-kafka-ssl-ca", "/ca.pem"},
			env: map[string]string{"SERVICE_KAFKA_SASL_PASSWORD": "s3cret"},
			check: func(t *testing.T, c config) {
				want := kafkaclient.Security{Protocol: kafkaclient.SASLSSL, Mechanism: kafkaclient.ScramSHA512, Username: "svc", Password: "s3cret", CALocation: "/ca.pem"}
				if c.Kafka.Security != want || c.Kafka.BootstrapServers != "b:9094" {
					t.Errorf("kafka = %#v", c.Kafka)
				}
				if strings.Contains(c.Kafka.String(), "s3cret") {
					t.Errorf("the password shows in %s", c.Kafka.String())
				}
			},
		},
		{
			name: "environment defaults, a flag wins",
			args: []string{"-group", "from-flag"},
			env:  map[string]string{"SERVICE_GROUP_ID": "from-env", "SERVICE_DLQ_TOPIC": "dlq-env", "SERVICE_SHUTDOWN_TIMEOUT": "3s"},
			check: func(t *testing.T, c config) {
				if c.GroupID != "from-flag" || c.DLQTopic != "dlq-env" || c.Shutdown != 3*time.Second {
					t.Errorf("config = %+v", c)
				}
			},
		},
		{name: "SASL without a mechanism", args: []string{"-kafka-security-protocol", "SASL_SSL"}, wantErr: "mechanism"},
		{name: "a bad shutdown timeout", args: []string{"-shutdown-timeout", "soon"}, wantErr: "shutdown timeout"},
		{name: "an empty group", args: []string{"-group", ""}, wantErr: "-group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
