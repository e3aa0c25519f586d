"""The deterministic, balanced choice of one industry's shipped scenarios among its candidates.

Greedy: each pick takes the candidate whose industry, skill, (skill, path), (industry, path), path,
path variant and persona have been picked least so far, in that order of priority; ties go to a
seeded random order. The build calls it once per industry, with a seed derived from the industry id
and a fixed quota of 50, so no industry's choice depends on another's. With 8 skills x 7 paths that
gives 6 or 7 scenarios per skill (on distinct paths), 7 or 8 per path and 4 to 6 per persona label.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from skillbench.benchmark.generator.scenarios import Candidate


def _keys(candidate: Candidate) -> tuple[tuple[str, ...], ...]:
    s = candidate.scenario
    return (
        ("industry", candidate.industry),
        ("skill", s.skill_id),
        ("skill_path", s.skill_id, s.path),
        ("industry_path", candidate.industry, s.path),
        ("path", s.path),
        ("variant", s.path, candidate.variant),
        ("persona", s.persona.label),
        ("skill_persona", s.skill_id, s.persona.label),
    )


def select_balanced(candidates: Sequence[Candidate], count: int, seed: int) -> list[Candidate]:
    if count >= len(candidates):
        return list(candidates)
    order = list(range(len(candidates)))
    random.Random(seed).shuffle(order)  # the tie-break
    rank = {index: position for position, index in enumerate(order)}
    # Keys as small ints and counts in a list; candidates grouped by (industry, skill) so the first two
    # levels are decided over ~80 groups instead of ~2,000 candidates.
    ids: dict[tuple[str, ...], int] = {}
    keys = [tuple(ids.setdefault(key, len(ids)) for key in _keys(c)) for c in candidates]
    counts = [0] * len(ids)
    by_skill: dict[int, list[int]] = {}
    skills_of: dict[int, list[int]] = {}
    for i in order:
        industry, skill = keys[i][0], keys[i][1]
        by_skill.setdefault(skill, []).append(i)
        if skill not in skills_of.setdefault(industry, []):
            skills_of[industry].append(skill)
    chosen: list[int] = []
    for _ in range(count):
        industries = [ind for ind, skills in skills_of.items() if any(by_skill[s] for s in skills)]
        least = min(counts[ind] for ind in industries)
        skills = [s for ind in industries if counts[ind] == least for s in skills_of[ind] if by_skill[s]]
        least = min(counts[s] for s in skills)
        pool = sorted((i for s in skills if counts[s] == least for i in by_skill[s]), key=rank.__getitem__)
        for level in range(2, len(keys[0])):  # then the least-picked at each remaining level
            if len(pool) == 1:
                break
            least = min(counts[keys[i][level]] for i in pool)
            pool = [i for i in pool if counts[keys[i][level]] == least]
        best = pool[0]
        by_skill[keys[best][1]].remove(best)
        chosen.append(best)
        for key in keys[best]:
            counts[key] += 1
    return [candidates[i] for i in sorted(chosen)]
