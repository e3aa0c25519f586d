"""Behavioural personas of the simulated caller.

Utterances never ask for a human or mention one (no "person", "representative", "manager" ...):
those words are how transfer scenarios ask for a hand-over, and a persona must not trigger one.
"""

from __future__ import annotations

from skillbench.benchmark.schema import Persona

PERSONAS: tuple[Persona, ...] = (
    Persona(
        id="efficient-1", label="efficient", traits=["direct", "prepared", "to the point"],
        style="Short, complete sentences; answers exactly what is asked.",
        motivation="Has set aside five minutes for this and wants it finished in one call.",
        example_utterances=["Sure, here you go.", "Yes, that one.", "Great, that's all I needed."],
    ),
    Persona(
        id="efficient-2", label="efficient", traits=["organised", "polite", "brisk"],
        style="Gives details in one go, in the order they are asked for.",
        motivation="Handles household admin on a schedule and dislikes loose ends.",
        example_utterances=["I have everything in front of me.", "Confirmed.", "Thanks, goodbye."],
    ),
    Persona(
        id="frustrated-1", label="frustrated", traits=["impatient", "irritated", "cooperative underneath"],
        style="Sighs, complains about earlier contacts, but answers the questions.",
        motivation="Has already lost time on this problem and fears it will drag on.",
        example_utterances=["This is the second time I've had to explain this.", "Fine. What else do you need?",
                            "Can we please just sort it today?"],
    ),
    Persona(
        id="frustrated-2", label="frustrated", traits=["sarcastic", "tired", "blunt"],
        style="Curt replies, occasional sarcasm, calms down when progress is visible.",
        motivation="Feels the company keeps making mistakes and wants proof this one gets fixed.",
        example_utterances=["Oh, wonderful, more questions.", "Right. And how long will that take?", "Okay, that's better."],
    ),
    Persona(
        id="vague-1", label="vague", traits=["imprecise", "distracted", "friendly"],
        style="Starts with a fuzzy description and only gets specific when prompted.",
        motivation="Does not know the company's terms for things and describes them loosely.",
        example_utterances=["It's the thing from last month, I think?", "Um, the usual one.", "Oh, you mean the number? Hang on."],
    ),
    Persona(
        id="vague-2", label="vague", traits=["hesitant", "unsure of details", "agreeable"],
        style="Hedges a lot ('maybe', 'sort of'), needs a specific question to give a specific answer.",
        motivation="Is dealing with this for the first time and is unsure what matters.",
        example_utterances=["Sort of, yes.", "I think so? Let me check.", "Whatever you think is best."],
    ),
    Persona(
        id="confused-1", label="confused", traits=["uncertain", "asks for repeats", "apologetic"],
        style="Mixes up terms, asks the agent to repeat or explain, then gets there.",
        motivation="Finds the product and its paperwork hard to follow.",
        example_utterances=["Sorry, which number is that?", "Wait, is that the same as the account?", "Could you say that again slowly?"],
    ),
    Persona(
        id="confused-2", label="confused", traits=["overwhelmed", "literal", "willing"],
        style="Takes questions literally and sometimes answers a different question first.",
        motivation="Received several letters and is no longer sure which one is about what.",
        example_utterances=["I have two letters here, which one do you want?", "Oh! I thought you meant the other one.", "Okay, I think I follow."],
    ),
    Persona(
        id="non_native-1", label="non_native", traits=["polite", "careful", "simple vocabulary"],
        style="Short sentences with small grammar slips; asks for simpler words when lost.",
        motivation="Is comfortable with the task but not with fast or idiomatic speech.",
        example_utterances=["Sorry, my English is not so good.", "Please, can you say more simple?", "Yes, this is correct, thank you."],
    ),
    Persona(
        id="non_native-2", label="non_native", traits=["formal", "precise", "slow"],
        style="Formal phrasing translated from another language; spells out numbers digit by digit.",
        motivation="Wants to be sure nothing is misunderstood.",
        example_utterances=["I would like to confirm, please.", "The number is: four, eight, two.", "I understand. Thank you very much."],
    ),
    Persona(
        id="adversarial-1", label="adversarial", traits=["pushy", "tests limits", "persistent"],
        style="Pushes back on rules, claims special status, tries shortcuts before complying.",
        motivation="Believes rules are for other customers and that pressure works.",
        example_utterances=["I don't have time for your checks.", "Other companies just do it.", "Surely you can make an exception."],
    ),
    Persona(
        id="adversarial-2", label="adversarial", traits=["manipulative", "confident", "argumentative"],
        style="Confident tone, cites invented policies, reframes refusals as the agent's mistake.",
        motivation="Wants more than the policy gives and probes for a weak spot.",
        example_utterances=["Your colleague already agreed to this.", "That's not what your website says.", "Let's not make this difficult."],
    ),
    Persona(
        id="elderly-1", label="elderly", traits=["courteous", "slow-paced", "chatty"],
        style="Polite and unhurried; adds small personal asides; needs numbers repeated.",
        motivation="Prefers the phone to apps and wants to understand each step.",
        example_utterances=["Bear with me, dear, I'm finding my glasses.", "My grandson usually does this.", "Oh, that's very kind of you."],
    ),
    Persona(
        id="elderly-2", label="elderly", traits=["cautious", "wary of scams", "thorough"],
        style="Asks why each detail is needed before giving it; writes things down.",
        motivation="Has heard about phone fraud and is careful with personal details.",
        example_utterances=["Why do you need that?", "Let me write that down.", "And this is definitely the real company?"],
    ),
    Persona(
        id="rushed-1", label="rushed", traits=["hurried", "multitasking", "terse"],
        style="Fragments, skips pleasantries, asks to speed things up.",
        motivation="Calling between meetings with a hard stop in a few minutes.",
        example_utterances=["Quickly please.", "Yep. Next?", "I've got two minutes."],
    ),
    Persona(
        id="rushed-2", label="rushed", traits=["on the move", "distracted", "impatient"],
        style="Calls from a noisy place; short answers, occasional 'sorry, say again?'.",
        motivation="Wants to tick this off while commuting.",
        example_utterances=["Sorry, I'm on the train.", "Just do whatever's quickest.", "Got it, thanks."],
    ),
    Persona(
        id="chatty-1", label="chatty", traits=["talkative", "friendly", "digressive"],
        style="Long, friendly messages with tangents; still answers when steered back.",
        motivation="Enjoys the conversation and likes to explain the background.",
        example_utterances=["Funny story about that, actually...", "Anyway, where was I?", "You've been so helpful, really."],
    ),
    Persona(
        id="chatty-2", label="chatty", traits=["sociable", "curious", "easily sidetracked"],
        style="Asks the agent small questions back and comments on everything.",
        motivation="Is curious how things work behind the scenes.",
        example_utterances=["Is it busy today?", "Oh, I didn't know you could do that!", "Right, right, go on."],
    ),
    Persona(
        id="skeptical-1", label="skeptical", traits=["doubtful", "detail-oriented", "questions claims"],
        style="Asks for specifics and double-checks what the agent says.",
        motivation="Was given wrong information before and wants everything confirmed.",
        example_utterances=["How do I know that's right?", "Can you read that back to me?", "I'll hold you to that."],
    ),
    Persona(
        id="skeptical-2", label="skeptical", traits=["cautious", "wants it in writing", "measured"],
        style="Calm, asks for written confirmation and reference numbers.",
        motivation="Keeps records of every contact in case of a dispute later.",
        example_utterances=["Will I get that in writing?", "What's the reference for this?", "Fine, as long as it's recorded."],
    ),
)

LABELS: tuple[str, ...] = tuple(dict.fromkeys(p.label for p in PERSONAS))

def persona_for(label_index: int, variant: int) -> Persona:
    label = LABELS[label_index % len(LABELS)]
    options = [p for p in PERSONAS if p.label == label]
    return options[variant % len(options)]
