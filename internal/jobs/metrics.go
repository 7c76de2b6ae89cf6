package jobs

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	outcomes *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	if reg == nil {
		return nil
	}
	m := &metrics{
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "concierge_jobs_total",
			Help: "Job attempts by kind and outcome (succeeded, retry, dead, cancelled, released, lease_lost).",
		}, []string{"kind", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "concierge_job_duration_seconds",
			Help:    "Duration of job attempts by kind.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900},
		}, []string{"kind"}),
	}
	reg.MustRegister(m.outcomes, m.duration)
	return m
}

func (m *metrics) observe(kind, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.outcomes.WithLabelValues(kind, outcome).Inc()
	m.duration.WithLabelValues(kind).Observe(took.Seconds())
}
