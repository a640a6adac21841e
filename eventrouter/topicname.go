package eventrouter

import "unicode/utf16"

// MaxTopicNameLength is the longest topic name Kafka accepts, in Java
// (UTF-16) characters.
const MaxTopicNameLength = 249

// InvalidTopicMessage is the message of the InvalidTopicException that
// Kafka's Topic.validate throws for topic (the text of kafka-clients 4.3,
// checked against the jar), or "" when Kafka accepts the name: not empty,
// not "." or "..", at most 249 characters, only ASCII letters, digits, '.',
// '_' and '-'. connectorconfig.ValidTopicName (rule
// TOPIC_NAME_INVALID) checks the same.
func InvalidTopicMessage(topic string) string {
	switch {
	case topic == "":
		return "Topic name is invalid: the empty string is not allowed"
	case topic == "." || topic == "..":
		return "Topic name is invalid: '" + topic + "' is not allowed"
	case len(utf16.Encode([]rune(topic))) > MaxTopicNameLength:
		return "Topic name is invalid: the length of '" + topic + "' is longer than the max allowed length 249"
	}
	for i := 0; i < len(topic); i++ {
		c := topic[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "Topic name is invalid: '" + topic + "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
		}
	}
	return ""
}
