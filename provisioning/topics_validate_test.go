package provisioning_test

import (
	"context"
	"errors"
	"testing"

	"github.com/outboxctl/outboxctl/provisioning"
)

func TestTopicOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o  provisioning.TopicOptions
		ok bool
	}{
		{provisioning.TopicOptions{}, true},
		{provisioning.TopicOptions{Partitions: 12, ReplicationFactor: 3}, true},
		{provisioning.TopicOptions{Partitions: provisioning.MaxPartitions, ReplicationFactor: provisioning.MaxReplicationFactor}, true},
		{provisioning.TopicOptions{Partitions: 4294967299}, false},
		{provisioning.TopicOptions{Partitions: -1}, false},
		{provisioning.TopicOptions{ReplicationFactor: -1}, false},
		{provisioning.TopicOptions{ReplicationFactor: 40000}, false},
	} {
		err := tc.o.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, provisioning.ErrInvalidOptions)) {
			t.Errorf("%+v: Validate() = %v, want ok %v", tc.o, err, tc.ok)
		}
	}
	// Provision refuses them before any change.
	_, err := provisioning.Provision(context.Background(), provisioning.Request{Topics: true, Topic: provisioning.TopicOptions{Partitions: -2}})
	if !errors.Is(err, provisioning.ErrInvalidOptions) {
		t.Errorf("Provision with partitions -2: %v", err)
	}
}
