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
      if (c.info.code.find("approximate") != std::string::npos)  // GELU (tanh), t = tanh(√(2/π)(x + 0.044715x³))
        return maths(d + " ⊙ (½(1 + t) + ½" + x + "(1 − t²)·√(2/π)(1 + 0.134145·" + x + "²))");
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
    case GradUse::TiledQuery:
      return maths("Σⱼ dSⱼ·kⱼ / √" + detail + ", dSⱼ = Pⱼ ⊙ (" + d + "·vⱼᵀ − rowsum(" + d + " ⊙ " + var_of(c) +
                   ")), Pⱼ = e^(q·kⱼᵀ / √" + detail + " − L)");
    case GradUse::TiledKey: return maths("Σᵢ dSᵢᵀ·qᵢ / √" + detail);
    case GradUse::TiledValue: return maths("Σᵢ Pᵢᵀ·" + d + "ᵢ");
    case GradUse::BatchSum: return maths(d + ".sum(0)");
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

StepInfo overview_grad_info(const Step& fwd, int64_t bq, int64_t bk) {
  const Shape& o = fwd.tensor.shape();  // (B, H, R, C)
  const std::string r = "torch.arange(" + std::to_string(o[2] * bq) + ")[:scores.shape[2]] // " + std::to_string(bq);
  const std::string c = "torch.arange(" + std::to_string(o[3] * bk) + ")[:scores.shape[3]] // " + std::to_string(bk);
  return StepInfo{.id = fwd.info.id + ".grad",
                  .title = Text(Msg::sg_scores_overview),
                  .formula = Text(Msg::sg_scores_overview_formula, bq, bk),
                  .code = "ds = torch.autograd.grad(loss, scores, retain_graph=True)[0]; r = " + r +
                          "; a = torch.zeros(*ds.shape[:2], " + std::to_string(o[2]) + ", ds.shape[3]).index_add_(2, r, "
                          "ds.nan_to_num(0.0)) / torch.bincount(r).view(-1, 1); dweights_overview = torch.zeros(*a.shape[:3], " +
                          std::to_string(o[3]) + ").index_add_(3, " + c + ", a)",
                  .result = "dweights_overview",
                  .bindings = fwd.info.bindings};
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
