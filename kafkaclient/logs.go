package kafkaclient

import (
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// ForwardLogs makes the client built from m send librdkafka's log lines
// to logf (nil: dropped) instead of librdkafka's own "%3|…|FAIL|rdkafka…"
// lines on stderr: it sets go.logs.channel.enable and go.logs.channel.
// Call stop after closing the client.
func ForwardLogs(m kafka.ConfigMap, logf func(format string, args ...any)) (stop func()) {
	ch := make(chan kafka.LogEvent, 64)
	done := make(chan struct{})
	m["go.logs.channel.enable"] = true
	m["go.logs.channel"] = ch
	go func() {
		for {
			select {
			case ev := <-ch:
				if logf != nil {
					logf("librdkafka %s %s: %s", levelName(ev.Level), ev.Tag, thrdPrefix.ReplaceAllString(ev.Message, ""))
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		select {
		case <-done:
		default:
			close(done)
		}
	}
}

// levelName names a syslog level as librdkafka logs it.
func levelName(l int) string {
	switch {
	case l <= 3:
		return "error"
	case l == 4:
		return "warning"
	case l <= 6:
		return "info"
	}
	return "debug"
}
