"""The API documentation site's pages (pytorch.org/docs): a function's signature, text and example."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocPage:
    name: str  # "torch.matmul"
    signature: str
    summary: str
    example: str  # the Examples block, as the page shows it (a doctest session)

    @property
    def path(self) -> str:
        return f"/docs/stable/generated/{self.name}.html"

    @property
    def url(self) -> str:
        return f"https://pytorch.org{self.path}"


PAGES: tuple[DocPage, ...] = (
    DocPage(
        "torch.matmul",
        "torch.matmul(input, other, *, out=None) -> Tensor",
        "Multiplies two tensors as matrices. One-dimensional operands are treated as vectors (dot product, or"
        " a vector promoted to a matrix and the added dimension removed again); operands with more than two"
        " dimensions are batches of matrices, and their batch dimensions broadcast.",
        ">>> # vector times vector\n"
        ">>> tensor1 = torch.randn(4)\n"
        ">>> tensor2 = torch.randn(4)\n"
        ">>> torch.matmul(tensor1, tensor2).size()\n"
        "torch.Size([])\n"
        ">>> # batched matrix times broadcast matrix\n"
        ">>> tensor1 = torch.randn(8, 2, 5)\n"
        ">>> tensor2 = torch.randn(5, 3)\n"
        ">>> torch.matmul(tensor1, tensor2).size()\n"
        "torch.Size([8, 2, 3])",
    ),
    DocPage(
        "torch.add",
        "torch.add(input, other, *, alpha=1, out=None) -> Tensor",
        "Adds other, scaled by alpha, to input, element by element; the shapes broadcast.",
        ">>> a = torch.tensor([1.0, 2.0])\n>>> torch.add(a, 10)\ntensor([11., 12.])",
    ),
    DocPage(
        "torch.zeros",
        "torch.zeros(*size, dtype=None, device=None) -> Tensor",
        "A tensor of the given shape filled with zeros.",
        ">>> torch.zeros(2, 3).shape\ntorch.Size([2, 3])",
    ),
    DocPage(
        "torch.randn",
        "torch.randn(*size, generator=None, dtype=None) -> Tensor",
        "A tensor of the given shape filled with samples of the standard normal distribution.",
        ">>> torch.randn(3).size()\ntorch.Size([3])",
    ),
    DocPage(
        "torch.nn.Linear",
        "torch.nn.Linear(in_features, out_features, bias=True)",
        "An affine map y = x A^T + b as a module, with a learnable weight and (by default) bias.",
        ">>> layer = torch.nn.Linear(20, 30)\n>>> layer(torch.randn(128, 20)).size()\ntorch.Size([128, 30])",
    ),
)


def doc_page(name: str) -> DocPage | None:
    return next((p for p in PAGES if p.name == name), None)
