package httpapi

// billingRoutes registers entitlements, credits and usage routes.
func (s *Server) billingRoutes() {}
