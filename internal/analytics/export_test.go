package analytics

// ReadJourneyFromRows makes s read the journey from the page views and
// conversations alone (true) or the whole days from analytics_journey_days
// (false).
func ReadJourneyFromRows(s *Service, fromRows bool) { s.journeyFromRows = fromRows }
