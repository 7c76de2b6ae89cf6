package httpapi

import (
	"context"
	"net/http"

	"concierge/internal/operator"
)

// OperatorView is an operator account (never its password or key).
type OperatorView struct {
	OperatorID int64  `json:"operator_id"`
	Email      string `json:"email"`
	Name       string `json:"name"`
	BotID      int64  `json:"bot_id" doc:"The one bot this operator handles."`
	Linked     bool   `json:"linked" doc:"The operator signed in and its e-mail is also a workspace owner's verified address: that owner can act as this operator with their own key and X-Workspace-Id. Always false at creation (except the owner's own address), so creating an operator tells nothing about the address."`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
}

func operatorView(o *operator.Operator) OperatorView {
	return OperatorView{OperatorID: o.ID, Email: o.Email, Name: o.Name, BotID: o.BotID, Linked: o.LinkedWorkspaceID != nil,
		CreatedAt: timestamp(o.CreatedAt), UpdatedAt: timestamp(o.UpdatedAt)}
}

type createOperatorInput struct {
	Body struct {
		Email    string `json:"email" format:"email" maxLength:"254"`
		Password string `json:"password" minLength:"8" maxLength:"256"`
		Name     string `json:"name,omitempty" maxLength:"100"`
		BotID    int64  `json:"bot_id" minimum:"1"`
	}
}

type createdOperatorOutput struct {
	Status int
	Body   struct {
		OperatorView
		OperatorKey string `json:"operator_key" doc:"The operator's key (X-Operator-Key); the operator also gets it at each POST /auth/operator-login."`
	}
}

type operatorIDInput struct {
	OperatorID int64 `path:"operator_id" minimum:"1"`
}

type updateOperatorInput struct {
	OperatorID int64 `path:"operator_id" minimum:"1"`
	Body       struct {
		Name     *string `json:"name,omitempty" maxLength:"100"`
		BotID    *int64  `json:"bot_id,omitempty" minimum:"1"`
		Password *string `json:"password,omitempty" minLength:"8" maxLength:"256" doc:"Sets a new password (the owner's reset)."`
	}
}

type operatorOutput struct {
	Body OperatorView
}

type operatorListOutput struct {
	Body struct {
		Items []OperatorView `json:"items"`
		Total int            `json:"total"`
	}
}

type operatorLoginOutput struct {
	Body struct {
		OperatorKey string `json:"operator_key" doc:"Send as X-Operator-Key."`
	}
}

type changePasswordInput struct {
	Body struct {
		CurrentPassword string `json:"current_password" minLength:"1" maxLength:"256"`
		NewPassword     string `json:"new_password" minLength:"8" maxLength:"256"`
	}
}

type deletedOperatorOutput struct {
	Body struct {
		Deleted    bool  `json:"deleted"`
		OperatorID int64 `json:"operator_id"`
	}
}

func (s *Server) operatorRoutes() {
	tags := []string{"Operators"}
	register(s, route{id: "list-operators", method: http.MethodGet, path: "/operators", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "List the workspace's live-chat operators"},
		func(ctx context.Context, _ *noInput) (*operatorListOutput, error) {
			ops, err := s.operators.List(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			out := &operatorListOutput{}
			out.Body.Items = make([]OperatorView, len(ops))
			for i := range ops {
				out.Body.Items[i] = operatorView(&ops[i])
			}
			out.Body.Total = len(ops)
			return out, nil
		})

	register(s, route{id: "create-operator", method: http.MethodPost, path: "/operators", tags: tags, creds: credWorkspace,
		limit: limitWrite, status: http.StatusCreated, summary: "Create an operator bound to one bot",
		desc: "201 with the operator and its key. 403 when bot_id is another workspace's or the plan's operator " +
			"allowance is used (plan_limit_reached); 409 when this workspace already has an operator with the e-mail. " +
			"The answer is the same whether or not the address is an operator or owner elsewhere.",
		errors: []int{http.StatusForbidden, http.StatusConflict, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *createOperatorInput) (*createdOperatorOutput, error) {
			c, err := s.operators.Create(ctx, principal(ctx).WorkspaceID(), operator.Input{Email: &in.Body.Email,
				Password: &in.Body.Password, Name: &in.Body.Name, BotID: &in.Body.BotID})
			if err != nil {
				return nil, err
			}
			out := &createdOperatorOutput{Status: http.StatusCreated}
			out.Body.OperatorView, out.Body.OperatorKey = operatorView(c.Operator), c.Key
			return out, nil
		})

	register(s, route{id: "get-operator", method: http.MethodGet, path: "/operators/{operator_id}", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "One operator", errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *operatorIDInput) (*operatorOutput, error) {
			o, err := s.operators.Get(ctx, principal(ctx).WorkspaceID(), in.OperatorID)
			if err != nil {
				return nil, err
			}
			return &operatorOutput{Body: operatorView(o)}, nil
		})

	register(s, route{id: "update-operator", method: http.MethodPatch, path: "/operators/{operator_id}", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Rename an operator, move it to another bot or set its password",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *updateOperatorInput) (*operatorOutput, error) {
			o, err := s.operators.Update(ctx, principal(ctx).WorkspaceID(), in.OperatorID, operator.Input{
				Name: in.Body.Name, BotID: in.Body.BotID, Password: in.Body.Password})
			if err != nil {
				return nil, err
			}
			return &operatorOutput{Body: operatorView(o)}, nil
		})

	register(s, route{id: "delete-operator", method: http.MethodDelete, path: "/operators/{operator_id}", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Delete an operator; its key stops working at once",
		errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *operatorIDInput) (*deletedOperatorOutput, error) {
			if err := s.operators.Delete(ctx, principal(ctx).WorkspaceID(), in.OperatorID); err != nil {
				return nil, err
			}
			out := &deletedOperatorOutput{}
			out.Body.Deleted, out.Body.OperatorID = true, in.OperatorID
			return out, nil
		})

	auth := []string{"Account"}
	register(s, route{id: "operator-login", method: http.MethodPost, path: "/auth/operator-login", tags: auth,
		limit: limitAuth, summary: "Operator sign-in",
		desc: "Returns the operator key (X-Operator-Key). 401 for a wrong e-mail or password; 429 when the " +
			"ceiling for the address or for the operator account is reached.",
		errors: []int{http.StatusUnauthorized, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *loginInput) (*operatorLoginOutput, error) {
			key, err := s.operators.Login(ctx, in.Body.Email, in.Body.Password)
			if err != nil {
				return nil, err
			}
			out := &operatorLoginOutput{}
			out.Body.OperatorKey = key
			return out, nil
		})

	register(s, route{id: "operator-change-password", method: http.MethodPost, path: "/auth/operator-change-password",
		tags: auth, creds: credOperator, limit: limitAuth, summary: "An operator changes their own password",
		desc:   "422 when current_password is wrong or new_password too short. The operator key does not change.",
		errors: []int{http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *changePasswordInput) (*statusOutput, error) {
			if err := s.operators.ChangePassword(ctx, principal(ctx).Operator, in.Body.CurrentPassword, in.Body.NewPassword); err != nil {
				return nil, err
			}
			out := &statusOutput{}
			out.Body.Status = "ok"
			return out, nil
		})
}
