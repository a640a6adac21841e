package eventrouter

import (
	"errors"

	"github.com/outboxctl/outboxctl/spec"
)

// The EventRouter's routing defaults.
const (
	// DefaultRouteTopicRegex is route.topic.regex when the key is absent.
	DefaultRouteTopicRegex = "(?<routedByValue>.*)"
	// DefaultRouteTopicReplacement is route.topic.replacement when the key
	// is absent.
	DefaultRouteTopicReplacement = spec.DefaultTopicReplacement
)

// RoutingTopic is the topic the EventRouter routes an event to whose
// Routing.ByField column holds routedByValue: RouteTopic with the spec's
// TopicRegex and TopicReplacement. matched is false when TopicRegex does
// not match the whole value; the topic is then the value itself.
func RoutingTopic(r spec.Routing, routedByValue string) (topic string, matched bool, err error) {
	return RouteTopic(r.TopicRegex, r.TopicReplacement, routedByValue)
}

// RouteTopic is the topic the EventRouter sends an event to whose
// route.by.field column holds routedByValue. The EventRouter names the
// record's topic after that value and hands it to Kafka's RegexRouter: when
// regex (route.topic.regex, "" for DefaultRouteTopicRegex) matches the whole
// value, the topic is Matcher.replaceFirst(replacement) with Java's "$n",
// "${name}" and "\x" syntax, and matched is true.
//
// When the regex does not match, matched is false and topic is
// routedByValue itself: the record keeps the topic the EventRouter gave it,
// and Kafka creates (or the producer fails on) a topic named after the raw
// value. Callers that derive topics to create or schemas to register should
// treat that as a misconfiguration to report, or use the value as the
// topic knowingly.
//
// A regex Java rejects is a *ConfigError unwrapping to ErrInvalidConfig;
// one Go can only approximate (lookaround, back-references, …) a
// *ConfigError unwrapping to ErrUnsupported. A replacement Matcher rejects
// is the *TaskError the connector task dies with (ErrTaskFailed).
func RouteTopic(regex, replacement, routedByValue string) (topic string, matched bool, err error) {
	if regex == "" {
		regex = DefaultRouteTopicRegex
	}
	re, err := compileJavaRegex(regex)
	if err != nil {
		return "", false, &ConfigError{Key: "route.topic.regex", Value: regex, Message: err.Error(), Unsupported: errors.Is(err, ErrUnsupported)}
	}
	if !re.re.Matches(routedByValue) {
		return routedByValue, false, nil
	}
	topic, err = re.route(routedByValue, replacement)
	if err != nil {
		return "", true, err
	}
	return topic, true, nil
}
