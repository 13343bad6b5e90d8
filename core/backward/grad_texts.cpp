#include "backward/grad_texts.h"

#include "model/step_builder.h"

namespace attnlab {

namespace {

std::string var_of(const Step& s) { return s.info.result.empty() ? s.info.id : s.info.result; }
std::string bound(const Step& s, size_t i) { return i < s.info.bindings.size() ? s.info.bindings[i].var : "?"; }

}  // namespace

Text grad_formula(GradUse use, const Step& c, const Step& to, const std::string& detail) {
  std::string d = "d";  // (d + name: GCC 12 warns falsely on "d" + std::string&&)
  d += var_of(c);
  switch (use) {
    case GradUse::Same:
    case GradUse::Residual: return maths(d);
    case GradUse::LinearInput: return maths(d + "·W");
    case GradUse::Norm: return maths("rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), dx̂ = " + d + "·γ");
    case GradUse::Activation: {
      const std::string x = var_of(to);
      return maths(c.info.code.find("gelu") != std::string::npos ? d + " ⊙ (Φ(" + x + ") + " + x + "·φ(" + x + "))"
                                                                  : d + " ⊙ [" + x + " > 0]");
    }
    case GradUse::ViewBack: return maths(d + ".view(" + dims_csv(to.tensor.shape()) + ")");
    case GradUse::TransposeBack: return maths(d + ".transpose(" + detail + ")");
    case GradUse::ProductLeft: return maths(d + "·" + bound(c, 1) + "ᵀ");
    case GradUse::ProductRight: return maths(bound(c, 0) + "ᵀ·" + d);
    case GradUse::Scale: return maths(d + " / " + detail);
    case GradUse::Masked: return maths(d + " ⊙ mask");
    case GradUse::Softmax: {
      const std::string p = var_of(c);
      return maths(p + " ⊙ (" + d + " − Σ " + d + " ⊙ " + p + ")");
    }
  }
  return maths(d);
}

Text loss_formula(LossKind kind) {
  if (kind == LossKind::Mse) return maths("L = mean((output − target)²): 2·(output − target) / N");
  if (kind == LossKind::NextToken || kind == LossKind::PerPosition)
    return maths("L = mean(−log(softmax(logits)[target])): (softmax(logits) − onehot(target)) / N");
  return Text(Msg::sg_loss_sum_every_element);
}

StepInfo grad_step_info(const Step& fwd, const std::vector<Text>& uses) {
  const std::string v = var_of(fwd);
  Text sum = maths("d" + v + " = ");
  for (size_t i = 0; i < uses.size(); ++i) {
    if (i) sum += maths(" + ");
    sum += uses[i];
  }
  return StepInfo{.id = fwd.info.id + ".grad",
                  .title = Text(Msg::sg_gradient_of_1, fwd.info.title),
                  .formula = sum,
                  .code = "d" + v + " = torch.autograd.grad(loss, " + v + ", retain_graph=True)[0]",
                  .result = "d" + v,
                  .bindings = {step_var(v, fwd.info.id)}};
}

StepInfo param_grad_info(const std::string& name) {
  return StepInfo{.id = "grad/" + name,
                  .title = Text(Msg::sg_gradient_of_parameter_1, name),
                  .formula = maths("∂L/∂" + name),
                  .code = "grad = torch.autograd.grad(loss, param, retain_graph=True)[0]",
                  .result = "grad",
                  .bindings = {weight_var("param", name)}};
}

}  // namespace attnlab
