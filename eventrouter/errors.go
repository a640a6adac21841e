package eventrouter

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by this package unwraps to one of them.
var (
	// ErrInvalidConfig: the connector config is rejected, either by the
	// EventRouter when the task starts (its configure()) or by this package
	// because it names a converter it does not emulate.
	ErrInvalidConfig = errors.New("invalid eventrouter config")
	// ErrTaskFailed: the real Kafka Connect task would fail on this record
	// (the SMT or a converter throws and errors.tolerance is none).
	ErrTaskFailed = errors.New("task would fail")
	// ErrUnsupported: the input uses something the emulator does not model
	// (for example a Java regex feature RE2 lacks).
	ErrUnsupported = errors.New("not emulated")
	// ErrInvalidEvent: the sample change event itself is malformed.
	ErrInvalidEvent = errors.New("invalid change event")
)

// Stage is where in the Kafka Connect source task pipeline an error occurs.
type Stage string

// Pipeline stages, in the order the worker runs them.
const (
	// StageConnector: the source connector building the change event (a
	// column value converter throwing under
	// event.converting.failure.handling.mode=fail); errors.tolerance does
	// not cover it
	StageConnector       Stage = "connector"
	StageTransformation  Stage = "transformation"
	StageHeaderConverter Stage = "header converter"
	StageKeyConverter    Stage = "key converter"
	StageValueConverter  Stage = "value converter"
	StageProducer        Stage = "producer"
)

// TaskError is the exception the real task would throw: its Java class,
// message and the pipeline stage. It unwraps to ErrTaskFailed.
type TaskError struct {
	Stage     Stage
	Exception string // Java class, e.g. org.apache.kafka.connect.errors.DataException
	Message   string
}

func (e *TaskError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Stage, e.Exception, e.Message)
}

// Unwrap returns ErrTaskFailed.
func (e *TaskError) Unwrap() error { return ErrTaskFailed }

const (
	excData          = "org.apache.kafka.connect.errors.DataException"
	excDebezium      = "io.debezium.DebeziumException"
	excConnect       = "org.apache.kafka.connect.errors.ConnectException"
	excNPE           = "java.lang.NullPointerException"
	excIllegalState  = "java.lang.IllegalStateException"
	excIllegalArg    = "java.lang.IllegalArgumentException"
	excIndexOOB      = "java.lang.IndexOutOfBoundsException"
	excClassCast     = "java.lang.ClassCastException"
	excSchemaBuilder = "org.apache.kafka.connect.errors.SchemaBuilderException"
	excInvalidRecord = "org.apache.kafka.common.InvalidRecordException"
	excInvalidTopic  = "org.apache.kafka.common.errors.InvalidTopicException"
)

func dataException(format string, args ...any) *TaskError {
	return &TaskError{Stage: StageTransformation, Exception: excData, Message: fmt.Sprintf(format, args...)}
}

func taskErr(exc, format string, args ...any) *TaskError {
	return &TaskError{Stage: StageTransformation, Exception: exc, Message: fmt.Sprintf(format, args...)}
}

func atStage(err error, st Stage) error {
	var te *TaskError
	if errors.As(err, &te) {
		c := *te
		c.Stage = st
		return &c
	}
	return err
}

// ConfigError is a rejected config key. It unwraps to ErrInvalidConfig (or
// ErrUnsupported when Unsupported is set).
type ConfigError struct {
	Key         string
	Value       string
	Message     string
	Unsupported bool
	// Connector: the connector's own config validation rejects the key,
	// so Connect refuses to create the connector and no task starts (not
	// an EventRouter failure at task start).
	Connector bool
}

func (e *ConfigError) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("%s=%q: %s", e.Key, e.Value, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Key, e.Message)
}

// Unwrap returns ErrInvalidConfig or ErrUnsupported.
func (e *ConfigError) Unwrap() error {
	if e.Unsupported {
		return ErrUnsupported
	}
	return ErrInvalidConfig
}
