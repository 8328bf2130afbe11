"""The cheapest one-to-one assignment of rows to columns of a square cost matrix (the
Hungarian method with potentials, O(n³); n is at most ten here: players to seats of one
table, or a round's groups to table numbers)."""

from __future__ import annotations

INFINITY = float("inf")


def cheapest_assignment(costs: list[list[float]]) -> list[int]:
    """column[i] for each row i, minimising the sum of costs[i][column[i]]."""
    n = len(costs)
    u = [0.0] * (n + 1)  # row potentials (1-based; 0 is the virtual start)
    v = [0.0] * (n + 1)  # column potentials
    owner = [0] * (n + 1)  # owner[j]: the row holding column j
    way = [0] * (n + 1)
    for row in range(1, n + 1):
        owner[0] = row
        j0 = 0
        least = [INFINITY] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0, step, j1 = owner[j0], INFINITY, 0
            for j in range(1, n + 1):
                if not used[j]:
                    reduced = costs[i0 - 1][j - 1] - u[i0] - v[j]
                    if reduced < least[j]:
                        least[j], way[j] = reduced, j0
                    if least[j] < step:
                        step, j1 = least[j], j
            for j in range(n + 1):
                if used[j]:
                    u[owner[j]] += step
                    v[j] -= step
                else:
                    least[j] -= step
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    column = [0] * n
    for j in range(1, n + 1):
        column[owner[j] - 1] = j - 1
    return column
